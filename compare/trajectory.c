/* trajectory.c: a run record copied under /trajectory of a compare file
 * (compare/trajectory.h). H5Ocopy keeps each dataset's type, shape and values. */
#include <stdio.h>

#include <hdf5.h>

#include "compare/trajectory.h"

typedef struct CopyCtx {
  hid_t dst;
  int failed;
  char name[256]; /* the object that failed */
} CopyCtx;

/* One root link of the source: copied to the same name under the destination group. */
static herr_t copy_one(hid_t src, const char *name, const H5L_info_t *info, void *arg) {
  (void)info;
  CopyCtx *c = arg;
  if (H5Ocopy(src, name, c->dst, name, H5P_DEFAULT, H5P_DEFAULT) < 0) {
    c->failed = 1;
    snprintf(c->name, sizeof c->name, "%s", name);
    return -1;
  }
  return 0;
}

int lsim_compare_trajectory_copy(int64_t dst, const char *src_path, char *err, size_t errlen) {
  int rc = -1;
  hid_t src = -1, group = -1;
  H5E_BEGIN_TRY {
    src = H5Fopen(src_path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (src >= 0) group = H5Gcreate2((hid_t)dst, "trajectory", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  } H5E_END_TRY;
  if (src < 0) {
    snprintf(err, errlen, "%s: cannot open the recorded trajectory", src_path);
  } else if (group < 0) {
    snprintf(err, errlen, "cannot create /trajectory in the compare file");
  } else {
    CopyCtx c = {group, 0, ""};
    herr_t it;
    H5E_BEGIN_TRY { it = H5Literate(src, H5_INDEX_NAME, H5_ITER_INC, NULL, copy_one, &c); } H5E_END_TRY;
    if (it < 0 || c.failed) snprintf(err, errlen, "%s: cannot copy /%s into /trajectory", src_path, c.name);
    else rc = 0;
  }
  if (group >= 0) H5Gclose(group);
  if (src >= 0) H5Fclose(src);
  return rc;
}
