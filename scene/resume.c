/* resume.c: a run file read back to continue the run (resume.h; docs/output-format.md,
 * "Resuming a run").
 *
 * The checks, in order: the file is a time-stepping run file with consistent row counts
 * (a killed run's partial file is: its rows are flushed together); its scene text equals
 * the scene's as JSON but for the keys that do not touch the trajectory; its parameters,
 * bodies and initial state (row 0, to the bit) are the model's; it was written by this
 * version of lcpsim; its stepper memory (/resume) is of its last step. Each failure names
 * the first thing that differs. Failure modes: an unreadable file (LSIM_IO_ERROR), out of
 * memory.
 *
 * The library's checkpoints (lsim_sim_save, lsim_sim_restore; "Checkpoints of the library")
 * are records of no steps with /file_kind "checkpoint": written by the recorder (header,
 * row 0 = the state, /resume), read with the same checks but for the initial state, which
 * they keep in /checkpoint, and with the solver settings compared, not taken.
 */
#include "scene/resume.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>
#include <hdf5_hl.h>
#include <jansson.h>

#include "lcp/h5check.h"
#include "lcp/solver.h"
#include "scene/outfile.h"
#include "scene/parse.h"
#include "scene/record.h"
#include "scene/scene.h"

#ifndef LSIM_VERSION
#define LSIM_VERSION "unknown"
#endif

static int say(char *err, size_t errlen, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int say(char *err, size_t errlen, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return status;
}

/* The dimensions of dataset name (rank into *rank, at most 3), or -1 when it is missing. */
static int dims_of(hid_t f, const char *name, hsize_t dims[3], int *rank) {
  dims[0] = dims[1] = dims[2] = 0;
  if (H5Lexists(f, name, H5P_DEFAULT) <= 0) return -1;
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  hid_t s = d >= 0 ? H5Dget_space(d) : -1;
  const int r = s >= 0 ? H5Sget_simple_extent_ndims(s) : -1;
  const int ok = r >= 0 && r <= 3 && H5Sget_simple_extent_dims(s, dims, NULL) == r;
  if (s >= 0) H5Sclose(s);
  if (d >= 0) H5Dclose(d);
  *rank = r;
  return ok ? 0 : -1;
}

/* Reads rows [row, row + count) of a dataset of rank 1 or 2 (all its columns) into buf. */
static int read_rows(hid_t f, const char *name, hid_t mtype, hsize_t row, hsize_t count, void *buf) {
  hsize_t dims[3];
  int rank;
  if (dims_of(f, name, dims, &rank) || rank < 1 || rank > 2 || row + count > dims[0]) return -1;
  if (count == 0 || (rank == 2 && dims[1] == 0)) return 0;
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  hid_t fs = d >= 0 ? H5Dget_space(d) : -1;
  hsize_t start[2] = {row, 0}, cnt[2] = {count, rank == 2 ? dims[1] : 1};
  hid_t ms = H5Screate_simple(rank, cnt, NULL);
  const int ok = fs >= 0 && ms >= 0 &&
                 H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL) >= 0 &&
                 H5Dread(d, mtype, ms, fs, H5P_DEFAULT, buf) >= 0;
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  if (d >= 0) H5Dclose(d);
  return ok ? 0 : -1;
}

/* A scalar (or one-element) dataset. */
static int read_scalar(hid_t f, const char *name, hid_t mtype, void *out) {
  if (H5Lexists(f, name, H5P_DEFAULT) <= 0) return -1;
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  const int ok = d >= 0 && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0;
  if (d >= 0) H5Dclose(d);
  return ok ? 0 : -1;
}

/* A scalar fixed-length string, malloc'd (NULL when missing or not a string). */
static char *read_string(hid_t f, const char *name) {
  if (H5Lexists(f, name, H5P_DEFAULT) <= 0) return NULL;
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  hid_t t = d >= 0 ? H5Dget_type(d) : -1;
  char *s = NULL;
  if (t >= 0 && H5Tget_class(t) == H5T_STRING && !H5Tis_variable_str(t)) {
    const size_t len = H5Tget_size(t);
    hid_t mt = H5Tcopy(H5T_C_S1);
    s = calloc(len + 1, 1);
    if (s && (mt < 0 || H5Tset_size(mt, len) < 0 ||
              H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, s) < 0)) {
      free(s);
      s = NULL;
    }
    if (mt >= 0) H5Tclose(mt);
  }
  if (t >= 0) H5Tclose(t);
  if (d >= 0) H5Dclose(d);
  return s;
}

/* A 1-D dataset of any length into *out (malloc'd, at least one element), its length in
 * *n. -1 when missing or not 1-D, -2 out of memory. */
static int read_vector(hid_t f, const char *name, hid_t mtype, size_t elem, int *n, void **out) {
  hsize_t dims[3];
  int rank;
  if (dims_of(f, name, dims, &rank) || rank != 1 || dims[0] > (hsize_t)1 << 30) return -1;
  free(*out);
  *out = malloc((size_t)(dims[0] > 0 ? dims[0] : 1) * elem);
  if (!*out) return -2;
  *n = (int)dims[0];
  return read_rows(f, name, mtype, 0, dims[0], *out);
}

/* /parameters/solver_tol .. solver_sparse_limit into info, and sparse Lemke's settings when
 * the file has them (lu_refactor 0 when not). 0, or -1 when one of the first is missing. */
static int read_solver_settings(hid_t f, LsimResumeInfo *info) {
  info->block_start = info->lu_solve = info->lu_refactor = 0;
  info->ties_shortcut = -1;
  char *lu = read_string(f, "/parameters/solver_lu_solve");
  /* A file of the scene's keys alone ("default", 0: the environment's then, unknown) says
     nothing of the settings in effect. */
  if (!lu || lsim_lu_solve_parse(lu, &info->lu_solve) ||
      read_scalar(f, "/parameters/solver_block_start", H5T_NATIVE_INT, &info->block_start) ||
      read_scalar(f, "/parameters/solver_lu_refactor", H5T_NATIVE_INT, &info->lu_refactor) ||
      info->lu_refactor <= 0)
    info->block_start = info->lu_solve = info->lu_refactor = 0;
  /* the tie shortcut, with the others (files before it: not said) */
  if (info->lu_refactor > 0 && H5Lexists(f, "/parameters/solver_ties_shortcut", H5P_DEFAULT) > 0 &&
      (read_scalar(f, "/parameters/solver_ties_shortcut", H5T_NATIVE_INT, &info->ties_shortcut) ||
       info->ties_shortcut < 0 || info->ties_shortcut > 2))
    info->ties_shortcut = -1;
  free(lu);
  if (read_scalar(f, "/parameters/solver_principal", H5T_NATIVE_INT, &info->principal) ||
      info->principal < 0)
    info->principal = 0; /* not written: no phase ran */
  char *prec = read_string(f, "/parameters/solver_precision");
  info->precision = prec && !strcmp(prec, "float"); /* not written: double */
  free(prec);
  char *simd = read_string(f, "/parameters/solver_simd");
  info->simd_reference = simd && !strcmp(simd, "reference");
  free(simd);
  return read_scalar(f, "/parameters/solver_tol", H5T_NATIVE_DOUBLE, &info->tol) ||
         read_scalar(f, "/parameters/solver_max_iter", H5T_NATIVE_INT, &info->max_iter) ||
         read_scalar(f, "/parameters/solver_omega", H5T_NATIVE_DOUBLE, &info->omega) ||
         read_scalar(f, "/parameters/solver_warm_start", H5T_NATIVE_INT, &info->warm_start) ||
         read_scalar(f, "/parameters/solver_threads", H5T_NATIVE_INT, &info->threads) ||
         read_scalar(f, "/parameters/solver_sparse_limit", H5T_NATIVE_INT, &info->sparse_limit)
             ? -1
             : 0;
}

static hid_t open_run(const char *path, char *err, size_t errlen) {
  char why[256];
  if (lsim_input_probe(path, why, sizeof why)) {
    say(err, errlen, 0, "%s: %s%s", path, why,
        strncmp(why, "is a", 4) ? "" : " (a run file of lcpsim is a file)");
    return -1;
  }
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  /* A run file cut before its first complete flush: refused before HDF5 reads it. */
  if (lsim_h5_head(path) == LSIM_H5_HEAD_CUT) {
    say(err, errlen, 0, "%s: %s", path, LSIM_H5_CUT_MESSAGE);
    return -1;
  }
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) say(err, errlen, 0, "%s: cannot open as an HDF5 file (a run file of lcpsim is)", path);
  return f;
}

int lsim_resume_read_info(const char *run_path, LsimResumeInfo *info, char **scene_text,
                          char *err, size_t errlen) {
  memset(info, 0, sizeof *info);
  *scene_text = NULL;
  /* A live run's partial file: its state is the last flush's, and its writer goes on (two
     runs would then continue one trajectory); a killed run's has no lock and resumes. */
  if (lsim_outfile_being_written(run_path)) {
    say(err, errlen, 0, "%s: a running lcpsim writes it now (its partial file, locked): "
        "refused, that run goes on past what the file holds; let it end, or stop it "
        "(SIGINT keeps its steps under its final name) and resume that file", run_path);
    return LSIM_INVALID_INPUT;
  }
  hid_t f = open_run(run_path, err, errlen);
  if (f < 0) return LSIM_IO_ERROR;
  int rc = LSIM_INVALID_INPUT;
  char *kind = read_string(f, "/file_kind"), *integrator = read_string(f, "/parameters/integrator");
  char *end = read_string(f, "/summary/run_end"), *solver = read_string(f, "/parameters/solver_name");
  char *policy = read_string(f, "/parameters/solver_on_failure");
  hsize_t dt[3], dq[3], dv[3], ds[3], doff[3];
  int rank;
  if (kind && !strcmp(kind, "hybrid")) {
    say(err, errlen, 0, "%s: a hybrid-model run (file_kind hybrid): it cannot be resumed (the "
        "integrator's state between samples, CVODE's history and step size, is not in the "
        "file); run the model again with a longer duration", run_path);
    goto done;
  }
  if (integrator && !strcmp(integrator, "event_driven")) {
    say(err, errlen, 0, "%s: an event-driven run (/parameters/integrator event_driven): it cannot "
        "be resumed (the integrator's state between samples, CVODE's history, the contact modes "
        "and the chattering guard's impact window, is not in the file); run the scene again with "
        "a longer duration", run_path);
    goto done;
  }
  if (kind && !strcmp(kind, "checkpoint")) {
    say(err, errlen, 0, "%s: a checkpoint of the library (file_kind checkpoint, lsim_sim_save): "
        "restore it with lsim_sim_restore (Python: Sim.restore) into a simulation of its scene; "
        "--resume continues run files", run_path);
    goto done;
  }
  H5G_info_t root;
  if (H5Gget_info(f, &root) >= 0 && root.nlinks == 0) {
    /* What a run killed before its header's flush leaves: HDF5's empty root alone. */
    say(err, errlen, 0, "%s: holds nothing (an HDF5 file with an empty root group: a run killed "
        "before its first flush, the header's, reached the file): nothing in it can be "
        "continued; run the scene again", run_path);
    goto done;
  }
  if (kind || dims_of(f, "/time", dt, &rank) || rank != 1 || dims_of(f, "/q", dq, &rank) ||
      dims_of(f, "/v", dv, &rank) || dims_of(f, "/solver/status", ds, &rank) ||
      dims_of(f, "/contacts/offset", doff, &rank)) {
    say(err, errlen, 0, "%s: not a run file of lcpsim (%s)", run_path,
        kind ? "it has a /file_kind" : "no /time, /q, /v, /solver/status or /contacts/offset");
    goto done;
  }
  /* A killed run's file (no /summary) holds whole the rows of its last flush that reached
     the file whole, /flushed_rows of them (scene/record.c mark_flushed); a flush
     cut short may have left more rows in some datasets' extents, which are not taken. */
  int64_t whole = -1;
  if (!end && !read_scalar(f, "/flushed_rows", H5T_NATIVE_INT64, &whole)) {
    if (whole < 1) {
      say(err, errlen, 0, "%s: unfinished (no /summary), and killed before its first flush reached "
          "the file whole (/flushed_rows is %lld): nothing in it can be continued; run the "
          "scene again", run_path, (long long)whole);
      goto done;
    }
    const hsize_t w = (hsize_t)whole;
    if (w > (hsize_t)1 << 30 || dt[0] < w || dq[0] < w || dv[0] < w || ds[0] + 1 < w ||
        doff[0] < w + 1) {
      say(err, errlen, 0, "%s: its rows (/time %llu, /q %llu, /v %llu, /solver/status %llu, "
          "/contacts/offset %llu) are fewer than its last whole flush left (/flushed_rows: "
          "%lld states): a damaged file", run_path, (unsigned long long)dt[0],
          (unsigned long long)dq[0], (unsigned long long)dv[0], (unsigned long long)ds[0],
          (unsigned long long)doff[0], (long long)whole);
      goto done;
    }
    info->steps_done = (int)(w - 1);
    info->steps_cut = (int)(dt[0] - w);
  } else if (dt[0] < 1 || dq[0] != dt[0] || dv[0] != dt[0] || ds[0] + 1 != dt[0] ||
             doff[0] != dt[0] + 1) {
    say(err, errlen, 0, "%s: its rows disagree (/time %llu, /q %llu, /v %llu, /solver/status %llu, "
        "/contacts/offset %llu rows): not a whole run file", run_path, (unsigned long long)dt[0],
        (unsigned long long)dq[0], (unsigned long long)dv[0], (unsigned long long)ds[0],
        (unsigned long long)doff[0]);
    goto done;
  } else {
    info->steps_done = (int)(dt[0] - 1);
  }
  info->rows = info->steps_done; /* the rows taken (a killed run's: its last whole flush's) */
  /* With a record stride the rows are the steps kept: /step says which (the last row is
     the run's last step). */
  info->record_every = 1;
  if (H5Lexists(f, "/parameters/record_every", H5P_DEFAULT) > 0 &&
      (read_scalar(f, "/parameters/record_every", H5T_NATIVE_INT, &info->record_every) ||
       info->record_every < 1)) {
    say(err, errlen, 0, "%s: /parameters/record_every unreadable or < 1: a damaged file", run_path);
    goto done;
  }
  if (info->record_every > 1) {
    hsize_t dst[3];
    int last = -1;
    const hsize_t used = (hsize_t)info->rows + 1;
    if (dims_of(f, "/step", dst, &rank) || rank != 1 || dst[0] < used ||
        (info->steps_cut == 0 && dst[0] != dt[0]) ||
        read_rows(f, "/step", H5T_NATIVE_INT, used - 1, 1, &last) || last < info->rows) {
      say(err, errlen, 0, "%s: record_every %d but /step has not the %llu rows of /time, or "
          "its last is not a step: not a whole run file", run_path, info->record_every,
          (unsigned long long)dt[0]);
      goto done;
    }
    info->steps_done = last;
  }
  /* The slot of the last step (the other may be one flush older, or a flush cut short). */
  info->memory_step = -1;
  for (int slot = 0; slot < 2; ++slot) {
    char name[32];
    int step = -1;
    snprintf(name, sizeof name, "/resume/slot%d/step", slot);
    if (read_scalar(f, name, H5T_NATIVE_INT, &step)) continue;
    if (info->memory_step != info->steps_done && (step == info->steps_done || step > info->memory_step))
      info->memory_step = step, info->memory_slot = slot;
  }
  snprintf(info->run_end, sizeof info->run_end, "%s", end ? end : "unfinished");
  snprintf(info->solver_name, sizeof info->solver_name, "%s", solver ? solver : "");
  info->on_failure = -1;
  if (policy && lsim_on_failure_parse(policy, &info->on_failure)) info->on_failure = -1;
  info->has_lcp = H5Lexists(f, "/lcp", H5P_DEFAULT) > 0;
  *scene_text = read_string(f, "/scene_text");
  if (read_scalar(f, "/parameters/steps", H5T_NATIVE_INT, &info->steps_asked) ||
      read_solver_settings(f, info) || !solver || !*scene_text || !(*scene_text)[0]) {
    say(err, errlen, 0, "%s: no %s: not a run file of lcpsim that can be resumed", run_path,
        !*scene_text || !(*scene_text)[0] ? "scene text (/scene_text)" : "solver settings (/parameters/solver_*)");
    free(*scene_text);
    *scene_text = NULL;
    goto done;
  }
  rc = 0;
done:
  free(kind), free(integrator), free(end), free(solver), free(policy);
  H5Fclose(f);
  return rc;
}

/* ---- the scenes compared as JSON ---- */

/* Top-level keys that do not touch the trajectory ("$schema" is for editors alone: a scene
   moved to another folder points it elsewhere). */
static int ignored_key(const char *key) {
  static const char *const keys[] = {"steps", "duration", "output", "name", "description", "$schema"};
  for (size_t i = 0; i < sizeof keys / sizeof *keys; ++i)
    if (!strcmp(key, keys[i])) return 1;
  return 0;
}

/* A value in a few characters (JSON, cut at 60). */
static void show(const json_t *v, char *buf, size_t len) {
  if (json_is_real(v)) {
    lsim_format_exact(json_real_value(v), buf, len);
    return;
  }
  char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
  if (!s) snprintf(buf, len, "(a %s)", lsim_json_type_name(v));
  else if (strlen(s) > 60) snprintf(buf, len, "%.57s...", s);
  else snprintf(buf, len, "%s", s);
  free(s);
}

/* The first difference of a and b under path: 1 with path (the place in a) and what
 * (a message) filled, else 0. */
static int json_diff(const json_t *a, const json_t *b, char *path, size_t plen, int top,
                     char *what, size_t wlen) {
  char sa[80], sb[80];
  const int na = json_is_number(a), nb = json_is_number(b);
  if (na && nb) {
    if (json_number_value(a) == json_number_value(b)) return 0;
  } else if (json_typeof(a) == json_typeof(b)) {
    if (json_is_string(a)) {
      if (!strcmp(json_string_value(a), json_string_value(b))) return 0;
    } else if (json_is_array(a)) {
      const size_t la = json_array_size(a), lb = json_array_size(b);
      if (la != lb) {
        snprintf(what, wlen, "%zu entries here, %zu in the run's scene", la, lb);
        return 1;
      }
      const size_t at = strlen(path);
      for (size_t i = 0; i < la; ++i) {
        snprintf(path + at, plen - at, "[%zu]", i);
        if (json_diff(json_array_get(a, i), json_array_get(b, i), path, plen, 0, what, wlen)) return 1;
      }
      path[at] = '\0';
      return 0;
    } else if (json_is_object(a)) {
      const size_t at = strlen(path);
      const char *key;
      json_t *va;
      json_object_foreach((json_t *)a, key, va) {
        if (top && ignored_key(key)) continue;
        snprintf(path + at, plen - at, "%s%s", at ? "." : "", key);
        const json_t *vb = json_object_get(b, key);
        if (!vb) {
          show(va, sa, sizeof sa);
          snprintf(what, wlen, "%s here, not given in the run's scene", sa);
          return 1;
        }
        if (json_diff(va, vb, path, plen, 0, what, wlen)) return 1;
      }
      path[at] = '\0';
      json_object_foreach((json_t *)b, key, va) {
        if ((top && ignored_key(key)) || json_object_get(a, key)) continue;
        show(va, sb, sizeof sb);
        snprintf(what, wlen, "the run's scene gives \"%s\": %s, this one does not", key, sb);
        return 1;
      }
      return 0;
    } else {
      return 0; /* true, false, null */
    }
  }
  show(a, sa, sizeof sa);
  show(b, sb, sizeof sb);
  snprintf(what, wlen, "%s here, %s in the run's scene", sa, sb);
  return 1;
}

static void scene_error(LsimSceneError *e, const char *text, const char *name, const char *path,
                        const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void scene_error(LsimSceneError *e, const char *text, const char *name, const char *path,
                        const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  lsim_scene_verror(e, text, name, path, 0, fmt, ap);
  va_end(ap);
}

int lsim_resume_compare_scenes(const char *text, const char *scene_path, const char *run_text,
                               const char *run_path, char *err, size_t errlen) {
  json_error_t je;
  json_t *a = json_loads(text, JSON_DECODE_ANY, &je);
  json_t *b = json_loads(run_text, JSON_DECODE_ANY, &je);
  int rc = 0;
  if (!a || !b) {
    rc = say(err, errlen, LSIM_INVALID_INPUT, "%s: the scene text of %s does not parse as JSON (%s)",
             scene_path, run_path, je.text);
  } else {
    char path[128] = "", what[300] = "";
    if (json_diff(a, b, path, sizeof path, 1, what, sizeof what)) {
      LsimSceneError se;
      char line[1024];
      scene_error(&se, text, scene_path, path, "%s (%s): the run is not of this scene", what, run_path);
      lsim_scene_error_format(&se, line, sizeof line);
      rc = say(err, errlen, LSIM_INVALID_INPUT, "%s", line);
    }
  }
  json_decref(a);
  json_decref(b);
  return rc;
}

/* ---- parameters, initial state, the state and memory to continue from ---- */

/* The body and coordinate name of column c of q (or v: velocity). */
static void column_name(const LsimModel *m, int c, int velocity, char *buf, size_t len) {
  for (int i = 0; i < m->nbodies; ++i) {
    const LsimBody *b = &m->bodies[i];
    const int off = velocity ? b->v_offset : b->q_offset, n = velocity ? b->nv : b->nq;
    if (n > 0 && c >= off && c < off + n) {
      snprintf(buf, len, "body '%s', %s column %d", b->name, velocity ? "v" : "q", c - off);
      return;
    }
  }
  snprintf(buf, len, "%s column %d", velocity ? "v" : "q", c);
}

/* Written by this lcpsim (another's steps may differ in their last bits), with the model's
 * parameters (a check that its scene was read the same way). 0, or -1 with err. */
static int check_header(hid_t f, const char *run_path, const LsimModel *m, char *err,
                        size_t errlen) {
  char *version = read_string(f, "/lcpsim_version");
  int dim = 0, nb = 0, nq = 0, nv = 0, nd = 0, rc = -1;
  double h = 0.0, g[3] = {0, 0, 0};
  if (!version || strcmp(version, LSIM_VERSION)) {
    say(err, errlen, 0, "%s: written by lcpsim %s, this is lcpsim %s: its steps would not be "
        "continued to the bit; refused", run_path, version ? version : "(unknown)", LSIM_VERSION);
  } else if (read_scalar(f, "/parameters/dimension", H5T_NATIVE_INT, &dim) ||
             read_scalar(f, "/parameters/time_step", H5T_NATIVE_DOUBLE, &h) ||
             read_scalar(f, "/parameters/nbodies", H5T_NATIVE_INT, &nb) ||
             read_scalar(f, "/parameters/nq", H5T_NATIVE_INT, &nq) ||
             read_scalar(f, "/parameters/nv", H5T_NATIVE_INT, &nv) ||
             read_scalar(f, "/parameters/friction_directions", H5T_NATIVE_INT, &nd) ||
             read_rows(f, "/parameters/gravity", H5T_NATIVE_DOUBLE, 0, 3, g)) {
    say(err, errlen, 0, "%s: /parameters incomplete: not a run file that can be resumed", run_path);
  } else if (dim != m->dimension || h != m->time_step || nb != m->nbodies || nq != m->nq ||
             nv != m->nv || nd != m->friction_directions || g[0] != m->gravity[0] ||
             g[1] != m->gravity[1] || g[2] != m->gravity[2]) {
    say(err, errlen, 0, "%s: its parameters differ from the scene's (dimension %d / %d, time_step "
        "%.17g / %.17g, bodies %d / %d, nq %d / %d, nv %d / %d, friction directions %d / %d, "
        "gravity (%g, %g, %g) / (%g, %g, %g)): the run is not of this scene", run_path, dim,
        m->dimension, h, m->time_step, nb, m->nbodies, nq, m->nq, nv, m->nv, nd,
        m->friction_directions, g[0], g[1], g[2], m->gravity[0], m->gravity[1], m->gravity[2]);
  } else {
    rc = 0;
  }
  free(version);
  return rc;
}

/* Row 0 of the datasets qname [., nq] and vname [., nv] equals q0, v0 to the bit (row[] a
 * buffer of max(nq, nv) doubles). 0, or -1 with err naming the first column that differs. */
static int check_initial(hid_t f, const char *run_path, const char *qname, const char *vname,
                         const LsimModel *m, const double *q0, const double *v0, double *row,
                         char *err, size_t errlen) {
  for (int w = 0; w < 2; ++w) {
    const int n = w ? m->nv : m->nq;
    const double *x = w ? v0 : q0;
    if (read_rows(f, w ? vname : qname, H5T_NATIVE_DOUBLE, 0, 1, row)) {
      say(err, errlen, 0, "%s: cannot read row 0 of %s", run_path, w ? vname : qname);
      return -1;
    }
    for (int c = 0; c < n; ++c)
      if (memcmp(&row[c], &x[c], sizeof(double))) {
        char col[120];
        column_name(m, c, w, col, sizeof col);
        say(err, errlen, 0, "%s: its initial state differs from the scene's at %s: %.17g in the "
            "file, %.17g from the scene: the run is not of this scene", run_path, col, row[c], x[c]);
        return -1;
      }
  }
  return 0;
}

/* The stepper's memory of /resume/slotSLOT into mem (freed first). 0, or LSIM_INVALID_INPUT /
 * LSIM_OUT_OF_MEMORY with err. */
static int read_memory(hid_t f, const char *run_path, int slot, LsimStepMemory *mem, char *err,
                       size_t errlen) {
  lsim_step_memory_free(mem);
  char nm[14][48];
  static const char *const names[14] = {
      "warm_id", "warm_nvar", "warm_z", "warm_basis", "warm_basis_valid", "sleep_asleep",
      "sleep_rest_steps", "sleep_group", "sleep_cache_id", "sleep_cache_body", "sleep_cache_nvar",
      "sleep_cache_z", "sleep_last_tether", "sleep_last_joint"};
  for (int i = 0; i < 14; ++i) snprintf(nm[i], sizeof nm[i], "/resume/slot%d/%s", slot, names[i]);
  int n1 = 0, n2 = 0, r = 0;
  r |= read_vector(f, nm[0], H5T_NATIVE_UINT64, sizeof(uint64_t), &mem->ncontacts, (void **)&mem->id);
  r |= read_vector(f, nm[1], H5T_NATIVE_INT, sizeof(int), &n1, (void **)&mem->nvar);
  r |= read_vector(f, nm[2], H5T_NATIVE_DOUBLE, sizeof(double), &mem->nz, (void **)&mem->z);
  r |= read_vector(f, nm[3], H5T_NATIVE_INT, sizeof(int), &n2, (void **)&mem->basis);
  r |= read_scalar(f, nm[4], H5T_NATIVE_INT, &mem->basis_valid);
  if (r || n1 != mem->ncontacts || n2 != mem->nz)
    return say(err, errlen, r == -2 ? LSIM_OUT_OF_MEMORY : LSIM_INVALID_INPUT, "%s: /resume/slot%d/warm_*: "
               "missing or of inconsistent sizes", run_path, slot);
  mem->sleep = H5Lexists(f, nm[5], H5P_DEFAULT) > 0;
  if (mem->sleep) {
    int a = 0, b = 0, c = 0, e1 = 0, e2 = 0, e3 = 0, t1 = 0, t2 = 0;
    r |= read_vector(f, nm[5], H5T_NATIVE_INT, sizeof(int), &a, (void **)&mem->asleep);
    r |= read_vector(f, nm[6], H5T_NATIVE_INT, sizeof(int), &b, (void **)&mem->rest_steps);
    r |= read_vector(f, nm[7], H5T_NATIVE_INT, sizeof(int), &c, (void **)&mem->group);
    r |= read_vector(f, nm[8], H5T_NATIVE_UINT64, sizeof(uint64_t), &e1, (void **)&mem->cache_id);
    r |= read_vector(f, nm[9], H5T_NATIVE_INT, sizeof(int), &e2, (void **)&mem->cache_body);
    r |= read_vector(f, nm[10], H5T_NATIVE_INT, sizeof(int), &e3, (void **)&mem->cache_nvar);
    r |= read_vector(f, nm[11], H5T_NATIVE_DOUBLE, sizeof(double), &mem->ncache_z, (void **)&mem->cache_z);
    r |= read_vector(f, nm[12], H5T_NATIVE_DOUBLE, sizeof(double), &t1, (void **)&mem->last_tether);
    r |= read_vector(f, nm[13], H5T_NATIVE_DOUBLE, sizeof(double), &t2, (void **)&mem->last_joint);
    mem->nbodies = a, mem->ncache = e1, mem->ntethers = t1, mem->njoints = t2 / 3;
    if (r || b != a || c != a || e2 != 2 * e1 || e3 != e1 || t2 % 3)
      return say(err, errlen, r == -2 ? LSIM_OUT_OF_MEMORY : LSIM_INVALID_INPUT, "%s: /resume/slot%d/sleep_*: "
                 "missing or of inconsistent sizes", run_path, slot);
  }
  /* Values a step can have left: finite impulses, a basis of 0 and 1 (a damaged file's
     NaN would be a warm start the solver takes as a guess). */
  const struct { const char *name; const double *x; int n; } vals[4] = {
      {"warm_z", mem->z, mem->nz}, {"sleep_cache_z", mem->cache_z, mem->sleep ? mem->ncache_z : 0},
      {"sleep_last_tether", mem->last_tether, mem->sleep ? mem->ntethers : 0},
      {"sleep_last_joint", mem->last_joint, mem->sleep ? 3 * mem->njoints : 0}};
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < vals[k].n; ++i)
      if (!isfinite(vals[k].x[i]))
        return say(err, errlen, LSIM_INVALID_INPUT, "%s: /resume/slot%d/%s[%d] is %g: not a value a "
                   "step leaves (a damaged file)", run_path, slot, vals[k].name, i, vals[k].x[i]);
  for (int i = 0; mem->basis_valid && i < mem->nz; ++i)
    if (mem->basis[i] != 0 && mem->basis[i] != 1)
      return say(err, errlen, LSIM_INVALID_INPUT, "%s: /resume/slot%d/warm_basis[%d] is %d, not 0 or "
                 "1 (a damaged file)", run_path, slot, i, mem->basis[i]);
  return 0;
}

int lsim_resume_read_state(const char *run_path, const LsimResumeInfo *info,
                           const LsimModel *m, LsimState *st, LsimStepMemory *mem,
                           char *err, size_t errlen) {
  hid_t f = open_run(run_path, err, errlen);
  if (f < 0) return LSIM_IO_ERROR;
  int rc = LSIM_INVALID_INPUT;
  const int N = info->steps_done, row_n = info->rows;
  double *row = malloc(((size_t)(m->nq > m->nv ? m->nq : m->nv) + 1) * sizeof(double));
  if (!row) {
    rc = say(err, errlen, LSIM_OUT_OF_MEMORY, "out of memory");
    goto done;
  }
  /* The stepper's memory must be of the last step the rows hold (first: a record of the
     library, row 0 at the step it was opened, has none). */
  if (info->memory_step < 0) {
    say(err, errlen, 0, "%s: no stepper memory (/resume): written by an lcpsim before resuming "
        "existed, or a record of the library (lsim_sim_record; its checkpoints are "
        "lsim_sim_save's); the run cannot be continued exactly", run_path);
    goto done;
  }
  if (info->memory_step != N) {
    say(err, errlen, 0, "%s: its stepper memory (/resume) is of step %d, its rows end at step "
        "%d (the run stopped at a step it did not record): it cannot be continued exactly",
        run_path, info->memory_step, N);
    goto done;
  }
  /* This lcpsim's file of the scene's parameters; row 0 the scene's initial state. */
  if (check_header(f, run_path, m, err, errlen) ||
      check_initial(f, run_path, "/q", "/v", m, st->q, st->v, row, err, errlen))
    goto done;
  /* The state after step N: time h N as the step computes it. */
  double t = 0.0;
  if (read_rows(f, "/time", H5T_NATIVE_DOUBLE, (hsize_t)row_n, 1, &t) ||
      read_rows(f, "/q", H5T_NATIVE_DOUBLE, (hsize_t)row_n, 1, st->q) ||
      read_rows(f, "/v", H5T_NATIVE_DOUBLE, (hsize_t)row_n, 1, st->v)) {
    say(err, errlen, 0, "%s: cannot read the state of step %d", run_path, N);
    goto done;
  }
  st->step = N;
  st->time = m->time_step * N;
  if (t != st->time) {
    say(err, errlen, 0, "%s: /time[%d] is %.17g, not %d steps of %.17g s", run_path, row_n, t, N, m->time_step);
    goto done;
  }
  /* The memory, from its slot. */
  rc = read_memory(f, run_path, info->memory_slot, mem, err, errlen);
done:
  free(row);
  H5Fclose(f);
  return rc;
}

/* ---- checkpoints of the library (lsim_sim_save, lsim_sim_restore) ---- */

int lsim_checkpoint_write(const char *path, const LsimModel *m, const LsimState *st,
                          const LsimState *initial, const LsimStepper *stepper,
                          const char *scene_text, const char *solver_name, char *err,
                          size_t errlen) {
  /* A record whose row 0 is the state (the run file's header, /q, /v, /time), ... */
  LsimRecord *rec = NULL;
  int rc = lsim_record_open(&rec, path, m, st, scene_text, solver_name, err, errlen);
  if (rc < 0) return rc;
  /* ... what makes it a checkpoint: its kind, its step, the initial state of its run, ... */
  const hid_t f = (hid_t)lsim_record_hdf5_file(rec);
  const hsize_t dq[2] = {1, (hsize_t)m->nq}, dv[2] = {1, (hsize_t)m->nv};
  const hid_t g = H5Gcreate2(f, "/checkpoint", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g >= 0) H5Gclose(g);
  if (g < 0 || H5LTmake_dataset_string(f, "/file_kind", "checkpoint") < 0 ||
      H5LTmake_dataset_int(f, "/checkpoint/step", 0, NULL, &st->step) < 0 ||
      H5LTmake_dataset_double(f, "/checkpoint/initial_q", 2, dq, initial->q) < 0 ||
      H5LTmake_dataset_double(f, "/checkpoint/initial_v", 2, dv, initial->v) < 0) {
    lsim_record_close(rec, 0, NULL, 0);
    return say(err, errlen, LSIM_IO_ERROR, "%s: cannot write /checkpoint", path);
  }
  /* ... and the stepper's memory of its step in /resume, written at the close. */
  lsim_record_keep_memory(rec, stepper, m, st);
  return lsim_record_close(rec, 1, err, errlen);
}

/* The file's solver settings (info, from /parameters) against the model's: 0, or -1 with
 * err naming the first that differs. */
static int check_solver(const char *path, const LsimResumeInfo *info, const LsimModel *m,
                        const char *solver_name, char *err, size_t errlen) {
  const LsimSolverSettings *s = &m->solver;
  char mine[80] = "", theirs[80] = "";
  const char *what = NULL;
  if (strcmp(info->solver_name, solver_name))
    what = "solver", snprintf(mine, sizeof mine, "%s", solver_name),
    snprintf(theirs, sizeof theirs, "%s", info->solver_name);
  else if (info->tol != s->tol)
    what = "solver option tol", snprintf(mine, sizeof mine, "%.17g", s->tol),
    snprintf(theirs, sizeof theirs, "%.17g", info->tol);
  else if (info->max_iter != s->max_iter)
    what = "solver option max_iter", snprintf(mine, sizeof mine, "%d", s->max_iter),
    snprintf(theirs, sizeof theirs, "%d", info->max_iter);
  else if (info->omega != s->omega)
    what = "solver option omega", snprintf(mine, sizeof mine, "%.17g", s->omega),
    snprintf(theirs, sizeof theirs, "%.17g", info->omega);
  else if (info->warm_start != s->warm_start)
    what = "solver option warm_start", snprintf(mine, sizeof mine, "%d", s->warm_start),
    snprintf(theirs, sizeof theirs, "%d", info->warm_start);
  else if (info->threads != s->threads)
    what = "solver option threads", snprintf(mine, sizeof mine, "%d", s->threads),
    snprintf(theirs, sizeof theirs, "%d", info->threads);
  else if (info->sparse_limit != s->sparse_limit)
    what = "solver option sparse_limit", snprintf(mine, sizeof mine, "%d", s->sparse_limit),
    snprintf(theirs, sizeof theirs, "%d", info->sparse_limit);
  else if (info->on_failure >= 0 && info->on_failure != s->on_failure)
    what = "solver option on_failure", snprintf(mine, sizeof mine, "%s", lsim_on_failure_name(s->on_failure)),
    snprintf(theirs, sizeof theirs, "%s", lsim_on_failure_name(info->on_failure));
  if (!what) return 0;
  say(err, errlen, 0, "%s: its %s is %s, the simulation's %s: the memory it holds is of its "
      "solver (choose that solver and options first: lsim_sim_set_solver)", path, what, theirs, mine);
  return -1;
}

int lsim_resume_ties_shortcut(void) {
  const char *ts = getenv("LSIM_TIES_SHORTCUT");
  return ts && ts[0] >= '0' && ts[0] <= '2' && !ts[1] ? ts[0] - '0' : 1;
}

int lsim_resume_check_sparse(const char *path, const LsimResumeInfo *info, const LsimModel *m,
                             char *err, size_t errlen) {
  if (info->lu_refactor <= 0) return 0;
  LsimSolverOptions o = lsim_default_solver_options();
  o.block_start = m->solver.block_start;
  o.lu_solve = m->solver.lu_solve;
  o.lu_refactor = m->solver.lu_refactor;
  int block = 0, lu = 0, every = 0;
  const int rc = lsim_solver_sparse_settings(info->solver_name, &o, &block, &lu, &every);
  if (rc < 0) return say(err, errlen, rc, "%s: cannot make the sparse Lemke settings to check (%s)",
                         path, rc == LSIM_OUT_OF_MEMORY ? "out of memory" : "invalid solver keys");
  if (rc == 0) return 0; /* a solver without sparse Lemke (a file that says: not ours) */
  char mine[16], theirs[16];
  const char *key = NULL, *var = NULL;
  if (lu != info->lu_solve) {
    key = "lu_solve", var = "LSIM_LU_SOLVE";
    snprintf(mine, sizeof mine, "%s", lsim_lu_solve_name(lu));
    snprintf(theirs, sizeof theirs, "%s", lsim_lu_solve_name(info->lu_solve));
  } else if (every != info->lu_refactor) {
    key = "lu_refactor", var = "LSIM_LU_REFACTOR";
    snprintf(mine, sizeof mine, "%d", every), snprintf(theirs, sizeof theirs, "%d", info->lu_refactor);
  } else if (block != info->block_start) {
    key = "block_start", var = "LSIM_BLOCK_START";
    snprintf(mine, sizeof mine, "%d", block), snprintf(theirs, sizeof theirs, "%d", info->block_start);
  }
  if (!key && info->ties_shortcut >= 0 && lsim_resume_ties_shortcut() != info->ties_shortcut) {
    /* no scene key: the environment's alone, for every solver that runs sparse Lemke */
    return say(err, errlen, LSIM_INVALID_INPUT, "%s: its %s run's sparse Lemke tie shortcut is "
               "%d, this run's %d (the environment's LSIM_TIES_SHORTCUT, else the built-in 1): "
               "the continued steps would not be the run's; take its setting "
               "(LSIM_TIES_SHORTCUT=%d)", path, info->solver_name, info->ties_shortcut,
               lsim_resume_ties_shortcut(), info->ties_shortcut);
  }
  if (!key) return 0;
  if (strcmp(info->solver_name, "lemke_sparse"))
    /* newton's fallback, lemke's LU run: the environment's alone (no scene key reaches it) */
    return say(err, errlen, LSIM_INVALID_INPUT, "%s: its %s run's sparse Lemke setting %s is "
               "%s, this run's %s (the environment's %s, else the built-in one; %s): the "
               "continued steps would not be the run's; take its setting (%s=%s)",
               path, info->solver_name, key, theirs, mine, var,
               strcmp(info->solver_name, "newton") ? "lemke's LU run after a failed dense run"
                                                  : "newton's sparse Lemke fallback",
               var, theirs);
  return say(err, errlen, LSIM_INVALID_INPUT, "%s: its lemke_sparse setting %s is %s, this "
             "run's %s (the scene's solver.%s, else the environment's %s, else the built-in "
             "one): the continued steps would not be the run's; take its setting (%s=%s)",
             path, key, theirs, mine, key, var, var, theirs);
}

int lsim_resume_check_principal(const char *path, const LsimResumeInfo *info,
                                const LsimModel *model, char *err, size_t errlen) {
  LsimSolverOptions o = lsim_default_solver_options();
  o.principal = model->solver.principal;
  const int mine = lsim_solver_principal_setting(info->solver_name, &o);
  if (mine < 0 || mine == info->principal) return 0; /* not lemke_sparse, or the same */
  return say(err, errlen, LSIM_INVALID_INPUT, "%s: its lemke_sparse setting principal is %d, "
             "this run's %d (the scene's solver.principal, else the environment's "
             "LSIM_PRINCIPAL, else 0): where the phase solves the bits differ, so the continued "
             "steps would not be the run's; take its setting (LSIM_PRINCIPAL=%d)",
             path, info->principal, mine, info->principal);
}

int lsim_resume_check_precision(const char *path, const LsimResumeInfo *info,
                                const LsimModel *model, char *err, size_t errlen) {
  LsimSolverOptions o = lsim_default_solver_options();
  o.precision = model->solver.precision;
  o.tol = model->solver.tol, o.max_iter = model->solver.max_iter; /* where it acts */
  const int mine = lsim_solver_precision_setting(info->solver_name, &o);
  if (mine < 0 || mine == info->precision) return 0; /* not pgs, or the same */
  static const char *const names[] = {"double", "float"};
  return say(err, errlen, LSIM_INVALID_INPUT, "%s: its pgs setting precision is %s, this run's "
             "%s (the scene's solver.precision, else the environment's LSIM_PGS_PRECISION, else "
             "double): the sweep's bits differ, so the continued steps would not be the run's; "
             "take its setting (LSIM_PGS_PRECISION=%s)",
             path, names[info->precision], names[mine], names[info->precision]);
}

int lsim_resume_check_env(const char *path, const LsimResumeInfo *info, char *err, size_t errlen) {
  const int mine = lsim_record_simd_reference();
  if (mine == info->simd_reference) return 0;
  return say(err, errlen, LSIM_INVALID_INPUT, "%s: its run took PGS's sweep on %s, this run %s: "
             "the reference path's bits are not the others', so the continued steps would not be "
             "the run's; %s", path, info->simd_reference ? "LSIM_SIMD=reference" : "the default paths",
             mine ? "LSIM_SIMD=reference" : "the default paths",
             info->simd_reference ? "take its setting (LSIM_SIMD=reference)" : "unset LSIM_SIMD");
}

/* The scene texts of the file (run_text: "" or NULL for a world built in code) and of the
 * simulation (text, NULL likewise) are the same scene. 0, or LSIM_INVALID_INPUT with err. */
static int same_scene(const char *text, const char *scene_name, const char *run_text,
                      const char *path, char *err, size_t errlen) {
  const int mine = text && text[0], theirs = run_text && run_text[0];
  if (mine && theirs) return lsim_resume_compare_scenes(text, scene_name, run_text, path, err, errlen);
  if (mine != theirs)
    return say(err, errlen, LSIM_INVALID_INPUT, "%s: %s, the simulation %s: not the same world",
               path, theirs ? "it holds a scene's state" : "it holds the state of a world built in code",
               mine ? "is a scene's" : "is a world built in code");
  return 0;
}

/* The world's bodies (type, mass), shapes (body, type, position, radius, half extents, mu)
 * and contact settings (margin, max_correction_speed) as the file's /bodies, /shapes and
 * /parameters, to the bit: what a world built in code has instead of a scene text. 0, or
 * -1 with err naming the first difference (LSIM_OUT_OF_MEMORY: -2). */
static int check_world(hid_t f, const char *path, const LsimModel *m, char *err, size_t errlen) {
  const int nb = m->nbodies, ns = m->nshapes > 0 && m->shapes ? m->nshapes : 0;
  const size_t n = (size_t)(nb > ns ? nb : ns) + 1;
  double *d = malloc(3 * n * sizeof *d);
  int *iv = malloc(n * sizeof *iv), rc = -1, count = 0;
  double margin = 0.0, cap = 0.0;
  if (!d || !iv) {
    rc = -2;
    say(err, errlen, 0, "out of memory");
    goto done;
  }
  if (read_scalar(f, "/parameters/contact_margin", H5T_NATIVE_DOUBLE, &margin) ||
      read_scalar(f, "/parameters/max_correction_speed", H5T_NATIVE_DOUBLE, &cap) ||
      read_rows(f, "/bodies/type", H5T_NATIVE_INT, 0, (hsize_t)nb, iv) ||
      read_rows(f, "/bodies/mass", H5T_NATIVE_DOUBLE, 0, (hsize_t)nb, d)) {
    say(err, errlen, 0, "%s: /parameters or /bodies incomplete: not written whole", path);
    goto done;
  }
  if (memcmp(&margin, &m->contact_margin, sizeof margin) ||
      memcmp(&cap, &m->max_correction_speed, sizeof cap)) {
    say(err, errlen, 0, "%s: its contact margin %.17g and max_correction_speed %.17g, the world's "
        "%.17g and %.17g: not the same world", path, margin, cap, m->contact_margin,
        m->max_correction_speed);
    goto done;
  }
  for (int i = 0; i < nb; ++i)
    if (iv[i] != (int)m->bodies[i].type || memcmp(&d[i], &m->bodies[i].mass, sizeof(double))) {
      say(err, errlen, 0, "%s: body %d ('%s') is of type %d and mass %.17g in the file, of type %d "
          "and mass %.17g here: not the same world", path, i, m->bodies[i].name, iv[i], d[i],
          (int)m->bodies[i].type, m->bodies[i].mass);
      goto done;
    }
  hsize_t dims[3];
  int rank;
  if (!dims_of(f, "/shapes/type", dims, &rank)) count = (int)dims[0];
  if (count != ns) {
    say(err, errlen, 0, "%s: %d shapes in the file, %d here: not the same world", path, count, ns);
    goto done;
  }
  /* Per shape: body, type, then its numbers (position 3, radius, half extents 3, mu). */
  static const char *const fields[4] = {"/shapes/position", "/shapes/radius", "/shapes/half_extents", "/shapes/mu"};
  static const int width[4] = {3, 1, 3, 1};
  for (int k = -2; k < 4; ++k) {
    const int ints = k < 0;
    const char *name = k == -2 ? "/shapes/body" : k == -1 ? "/shapes/type" : fields[k];
    if (ns && read_rows(f, name, ints ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, 0, (hsize_t)ns,
                        ints ? (void *)iv : (void *)d)) {
      say(err, errlen, 0, "%s: cannot read %s", path, name);
      goto done;
    }
    for (int i = 0; i < ns; ++i) {
      const LsimShape *sh = &m->shapes[i];
      const double *mine = k == 0 ? sh->pos : k == 1 ? &sh->radius : k == 2 ? sh->half : &sh->mu;
      const int differs = k == -2 ? iv[i] != sh->body : k == -1 ? iv[i] != (int)sh->type
                                  : memcmp(d + width[k] * i, mine, (size_t)width[k] * sizeof(double)) != 0;
      if (differs) {
        say(err, errlen, 0, "%s: shape %d (of body '%s') differs in %s: not the same world", path, i,
            sh->body >= 0 && sh->body < nb ? m->bodies[sh->body].name : "?", name);
        goto done;
      }
    }
  }
  rc = 0;
done:
  free(d);
  free(iv);
  return rc;
}

/* A checkpoint file (f open): checks, then its state and memory. */
static int read_checkpoint(hid_t f, const char *path, const LsimModel *m, const char *text,
                           const char *scene_name, const char *solver_name,
                           const LsimState *initial, LsimState *st, LsimStepMemory *mem,
                           char *err, size_t errlen) {
  LsimResumeInfo info;
  memset(&info, 0, sizeof info);
  char *run_text = read_string(f, "/scene_text"), *solver = read_string(f, "/parameters/solver_name");
  char *policy = read_string(f, "/parameters/solver_on_failure");
  double *row = malloc(((size_t)(m->nq > m->nv ? m->nq : m->nv) + 1) * sizeof(double));
  int rc = LSIM_INVALID_INPUT, step = -1, found = -1;
  if (!row) {
    rc = say(err, errlen, LSIM_OUT_OF_MEMORY, "out of memory");
    goto done;
  }
  if (!run_text || !solver || read_solver_settings(f, &info) ||
      read_scalar(f, "/checkpoint/step", H5T_NATIVE_INT, &step) || step < 0) {
    say(err, errlen, 0, "%s: a checkpoint without its scene text, solver settings or step: "
        "not written whole", path);
    goto done;
  }
  snprintf(info.solver_name, sizeof info.solver_name, "%s", solver);
  info.on_failure = -1;
  if (policy && lsim_on_failure_parse(policy, &info.on_failure)) info.on_failure = -1;
  /* The same world (scene, parameters, initial state) and solver. */
  rc = same_scene(text, scene_name, run_text, path, err, errlen);
  if (rc) goto done;
  rc = LSIM_INVALID_INPUT;
  if (check_header(f, path, m, err, errlen)) goto done;
  const int world = check_world(f, path, m, err, errlen);
  if (world == -2) rc = LSIM_OUT_OF_MEMORY;
  if (world || check_solver(path, &info, m, solver_name, err, errlen) ||
      lsim_resume_check_sparse(path, &info, m, err, errlen) ||
      lsim_resume_check_principal(path, &info, m, err, errlen) ||
      lsim_resume_check_precision(path, &info, m, err, errlen) ||
      lsim_resume_check_env(path, &info, err, errlen) ||
      check_initial(f, path, "/checkpoint/initial_q", "/checkpoint/initial_v", m, initial->q,
                    initial->v, row, err, errlen))
    goto done;
  /* The state (row 0) and the memory of its step. */
  double t = 0.0;
  if (read_rows(f, "/time", H5T_NATIVE_DOUBLE, 0, 1, &t) ||
      read_rows(f, "/q", H5T_NATIVE_DOUBLE, 0, 1, st->q) ||
      read_rows(f, "/v", H5T_NATIVE_DOUBLE, 0, 1, st->v)) {
    say(err, errlen, 0, "%s: cannot read the state it holds (/time, /q, /v row 0)", path);
    goto done;
  }
  if (!isfinite(t)) {
    say(err, errlen, 0, "%s: its time (/time[0]) is %g (a damaged file)", path, t);
    goto done;
  }
  st->time = t, st->step = step;
  for (int slot = 0; slot < 2 && found < 0; ++slot) {
    char name[32];
    int k = -1;
    snprintf(name, sizeof name, "/resume/slot%d/step", slot);
    if (!read_scalar(f, name, H5T_NATIVE_INT, &k) && k == step) found = slot;
  }
  if (found < 0) {
    say(err, errlen, 0, "%s: no stepper memory (/resume) of its step %d: not written whole", path, step);
    goto done;
  }
  rc = read_memory(f, path, found, mem, err, errlen);
done:
  free(row), free(run_text), free(solver), free(policy);
  return rc;
}

/* Every coordinate of st finite: 0, or LSIM_INVALID_INPUT with err naming the first that is
 * not (the step would refuse it, or spread it). */
static int check_finite(const char *path, const LsimModel *m, const LsimState *st, char *err,
                        size_t errlen) {
  for (int w = 0; w < 2; ++w)
    for (int c = 0; c < (w ? m->nv : m->nq); ++c) {
      const double x = w ? st->v[c] : st->q[c];
      if (isfinite(x)) continue;
      char col[120];
      column_name(m, c, w, col, sizeof col);
      return say(err, errlen, LSIM_INVALID_INPUT, "%s: the state it holds is %g at %s (a damaged "
                 "file, or a run that diverged)", path, x, col);
    }
  return 0;
}

static int read_any(const char *path, const LsimModel *m, const char *text,
                    const char *scene_name, const char *solver_name, const LsimState *initial,
                    LsimState *st, LsimStepMemory *mem, char *err, size_t errlen);

int lsim_checkpoint_read(const char *path, const LsimModel *m, const char *text,
                         const char *scene_name, const char *solver_name,
                         const LsimState *initial, LsimState *st, LsimStepMemory *mem,
                         char *err, size_t errlen) {
  const int rc = read_any(path, m, text, scene_name, solver_name, initial, st, mem, err, errlen);
  return rc ? rc : check_finite(path, m, st, err, errlen);
}

/* A checkpoint, or a run file of the command. */
static int read_any(const char *path, const LsimModel *m, const char *text,
                    const char *scene_name, const char *solver_name, const LsimState *initial,
                    LsimState *st, LsimStepMemory *mem, char *err, size_t errlen) {
  hid_t f = open_run(path, err, errlen);
  if (f < 0) return LSIM_IO_ERROR;
  char *kind = read_string(f, "/file_kind");
  int rc;
  if (kind && !strcmp(kind, "checkpoint")) {
    rc = read_checkpoint(f, path, m, text, scene_name, solver_name, initial, st, mem, err, errlen);
    free(kind);
    H5Fclose(f);
    return rc;
  }
  free(kind);
  H5Fclose(f);
  /* A run file of the command: as --resume reads it (which refuses hybrid-model and
     event-driven runs, and runs without /resume). */
  LsimResumeInfo info;
  char *run_text = NULL;
  rc = lsim_resume_read_info(path, &info, &run_text, err, errlen);
  if (!rc) rc = same_scene(text, scene_name, run_text, path, err, errlen);
  free(run_text);
  if (!rc && check_solver(path, &info, m, solver_name, err, errlen)) rc = LSIM_INVALID_INPUT;
  if (rc) return rc;
  /* read_state checks row 0 against st: the initial state first. */
  memcpy(st->q, initial->q, (size_t)m->nq * sizeof(double));
  memcpy(st->v, initial->v, (size_t)m->nv * sizeof(double));
  return lsim_resume_read_state(path, &info, m, st, mem, err, errlen);
}
