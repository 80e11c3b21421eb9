/* models.c: the registry of hybrid models by name (hybrid/model.h). A new model is a C
 * file in hybrid/ defining a const LsimHybridModel, declared and listed here
 * (docs/hybrid.md, "Adding a model"); make picks the file up. */
#include <string.h>

#include "hybrid/model.h"

extern const LsimHybridModel lsim_hybrid_slip;
extern const LsimHybridModel lsim_hybrid_bouncing_mass;

static const LsimHybridModel *const models[] = {
    &lsim_hybrid_slip,
    &lsim_hybrid_bouncing_mass,
    NULL,
};

const LsimHybridModel *lsim_hybrid_model_at(int i) {
  const int n = (int)(sizeof models / sizeof models[0]) - 1;
  return i >= 0 && i < n ? models[i] : NULL;
}

const LsimHybridModel *lsim_hybrid_model_find(const char *name) {
  for (int i = 0; models[i]; ++i)
    if (!strcmp(models[i]->name, name)) return models[i];
  return NULL;
}

int lsim_hybrid_name_index(const char *const *names, int n, const char *name) {
  for (int i = 0; i < n; ++i)
    if (!strcmp(names[i], name)) return i;
  return -1;
}
