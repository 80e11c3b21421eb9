/* record.c: the HDF5 file of a hybrid model run (record.h). The run is kept in memory
 * (hybrid/run.h) and written at its end in one pass of contiguous datasets. */
#include "hybrid/record.h"

#include <hdf5.h>
#include <hdf5_hl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scene/outfile.h"

#define LSIM_HYBRID_FORMAT_VERSION 1

typedef struct Writer {
  hid_t file;
  int failed;
  char what[200];
} Writer;

/* A dataset of rank 0 (scalar), 1 or 2 at name (intermediate groups created). */
static void put(Writer *w, const char *name, hid_t mtype, hid_t ftype, int rank,
                hsize_t d0, hsize_t d1, const void *data, const char *unit) {
  if (w->failed) return;
  const hsize_t dims[2] = {d0, d1};
  hid_t space = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims, NULL);
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  if (lcpl >= 0) H5Pset_create_intermediate_group(lcpl, 1);
  hid_t d = space >= 0 && lcpl >= 0
                ? H5Dcreate2(w->file, name, ftype, space, lcpl, H5P_DEFAULT, H5P_DEFAULT)
                : -1;
  const hsize_t n = rank == 0 ? 1 : rank == 1 ? d0 : d0 * d1;
  int ok = d >= 0 && (n == 0 || H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
  if (ok && unit) ok = H5LTset_attribute_string(d, ".", "unit", unit) >= 0;
  if (d >= 0) H5Dclose(d);
  if (lcpl >= 0) H5Pclose(lcpl);
  if (space >= 0) H5Sclose(space);
  if (!ok) {
    w->failed = 1;
    snprintf(w->what, sizeof w->what, "writing %s failed", name);
  }
}

static void put_double(Writer *w, const char *name, double v, const char *unit) {
  put(w, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 0, 0, 0, &v, unit);
}

static void put_int(Writer *w, const char *name, long v) {
  const int x = (int)v;
  put(w, name, H5T_NATIVE_INT, H5T_STD_I32LE, 0, 0, 0, &x, NULL);
}

static void put_doubles(Writer *w, const char *name, long rows, int cols, const double *v,
                        const char *unit) {
  put(w, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, cols < 0 ? 1 : 2, (hsize_t)rows,
      (hsize_t)(cols < 0 ? 0 : cols), v, unit);
}

static void put_ints(Writer *w, const char *name, long rows, const int *v) {
  put(w, name, H5T_NATIVE_INT, H5T_STD_I32LE, 1, (hsize_t)rows, 0, v, NULL);
}

/* n fixed-length strings (n < 0: one scalar string s[0]). */
static void put_strings(Writer *w, const char *name, const char *const *s, int n) {
  if (w->failed) return;
  const int count = n < 0 ? 1 : n;
  size_t len = 1;
  for (int i = 0; i < count; ++i)
    if (strlen(s[i]) + 1 > len) len = strlen(s[i]) + 1;
  char *buf = calloc((size_t)(count > 0 ? count : 1), len);
  hid_t t = H5Tcopy(H5T_C_S1);
  if (!buf || t < 0 || H5Tset_size(t, len) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0) {
    w->failed = 1;
    snprintf(w->what, sizeof w->what, "writing %s failed", name);
  } else {
    for (int i = 0; i < count; ++i) memcpy(buf + (size_t)i * len, s[i], strlen(s[i]));
    put(w, name, t, t, n < 0 ? 0 : 1, (hsize_t)count, 0, buf, NULL);
  }
  if (t >= 0) H5Tclose(t);
  free(buf);
}

static void put_string(Writer *w, const char *name, const char *s) {
  put_strings(w, name, &s, -1);
}

static void write_model(Writer *w, const LsimHybridModel *m, const double *p, const double *x0,
                        const LsimHybridTrace *tr) {
  put_string(w, "/model/name", m->name);
  put_string(w, "/model/description", m->description);
  put_strings(w, "/model/state_names", m->state_names, m->nstates);
  put_strings(w, "/model/parameter_names", m->param_names, m->nparams);
  put_doubles(w, "/model/parameters", m->nparams, -1, p, NULL);
  put_doubles(w, "/model/initial_state_given", m->nstates, -1, x0, NULL);
  put_doubles(w, "/model/initial_state", m->nstates, -1, tr->initial_state, NULL);
  put_int(w, "/model/initial_chart", tr->initial_chart);
  put_strings(w, "/model/output_names", m->output_names, m->noutputs);
  if (m->state_units) put_strings(w, "/model/state_units", m->state_units, m->nstates);
  if (m->param_units) put_strings(w, "/model/parameter_units", m->param_units, m->nparams);
  if (m->output_units && m->noutputs > 0) put_strings(w, "/model/output_units", m->output_units, m->noutputs);
  /* Charts and their boundaries, flat: chart c's are first_boundary[c] .. + n - 1. */
  const char **names = malloc((size_t)m->ncharts * sizeof *names);
  int *first = malloc((size_t)m->ncharts * 2 * sizeof *first);
  int nb = 0;
  for (int c = 0; c < m->ncharts; ++c) nb += m->charts[c].nboundaries;
  const char **bnames = malloc((size_t)(nb > 0 ? nb : 1) * sizeof *bnames);
  int *bdir = malloc((size_t)(nb > 0 ? nb : 1) * sizeof *bdir);
  if (!names || !first || !bnames || !bdir) {
    w->failed = 1;
    snprintf(w->what, sizeof w->what, "out of memory");
  } else {
    int k = 0;
    for (int c = 0; c < m->ncharts; ++c) {
      const LsimHybridChart *ch = &m->charts[c];
      names[c] = ch->name;
      first[c] = k;
      first[m->ncharts + c] = ch->nboundaries;
      for (int b = 0; b < ch->nboundaries; ++b, ++k) {
        bnames[k] = ch->boundary_names[b];
        bdir[k] = ch->direction ? ch->direction[b] : -1;
      }
    }
    put_strings(w, "/model/chart_names", names, m->ncharts);
    put_ints(w, "/model/chart_first_boundary", m->ncharts, first);
    put_ints(w, "/model/chart_nboundaries", m->ncharts, first + m->ncharts);
    put_strings(w, "/model/boundary_names", bnames, nb);
    put_ints(w, "/model/boundary_direction", nb, bdir);
  }
  free(names);
  free(first);
  free(bnames);
  free(bdir);
}

static void write_options(Writer *w, const LsimHybridOptions *o) {
  put_double(w, "/parameters/final_time", o->final_time, "s");
  put_double(w, "/parameters/rtol", o->rtol, NULL);
  put_double(w, "/parameters/atol", o->atol, NULL);
  put_double(w, "/parameters/max_step", o->max_step, "s");
  put_double(w, "/parameters/min_step", o->min_step, "s");
  put_double(w, "/parameters/stop_precision", o->stop_precision, NULL);
  put_int(w, "/parameters/max_stop_iterations", o->max_stop_iterations);
  put_int(w, "/parameters/max_chart_count", o->max_chart_count);
  put_double(w, "/parameters/record_period", o->record_period, "s");
  put_string(w, "/parameters/method", o->method == LSIM_ODE_BDF ? "bdf" : "adams");
  put_string(w, "/parameters/integrator", "SUNDIALS CVODE");
}

static void write_trace(Writer *w, const LsimHybridTrace *tr) {
  put_doubles(w, "/time", tr->nsamples, -1, tr->time, "s");
  put_doubles(w, "/state", tr->nsamples, tr->nstates, tr->state, NULL);
  put_ints(w, "/chart", tr->nsamples, tr->chart);
  put_doubles(w, "/outputs", tr->nsamples, tr->noutputs, tr->outputs, NULL);
  put_doubles(w, "/events/time", tr->nevents, -1, tr->ev_time, "s");
  put_ints(w, "/events/from_chart", tr->nevents, tr->ev_from);
  put_ints(w, "/events/to_chart", tr->nevents, tr->ev_to);
  put_ints(w, "/events/boundary", tr->nevents, tr->ev_boundary);
  put_ints(w, "/events/iterations", tr->nevents, tr->ev_iterations);
  put_doubles(w, "/events/boundary_value", tr->nevents, -1, tr->ev_g, NULL);
  put_doubles(w, "/events/state_before", tr->nevents, tr->nstates, tr->ev_before, NULL);
  put_doubles(w, "/events/state_after", tr->nevents, tr->nstates, tr->ev_after, NULL);
}

static void write_summary(Writer *w, const LsimHybridTrace *tr, double wall) {
  static const char *const ends[] = {"completed", "stopped", "interrupted"};
  put_int(w, "/summary/samples", tr->nsamples);
  put_int(w, "/summary/transitions", tr->nevents);
  put_double(w, "/summary/end_time", tr->nsamples ? tr->time[tr->nsamples - 1] : 0.0, "s");
  put_int(w, "/summary/integration_steps", tr->stats.steps);
  put_int(w, "/summary/flow_evaluations", tr->stats.rhs_evals);
  put_int(w, "/summary/boundary_evaluations", tr->stats.root_evals);
  put_int(w, "/summary/max_stop_iterations_used", tr->stats.max_event_iterations);
  put_double(w, "/summary/max_boundary_value", tr->stats.max_event_g, NULL);
  put_double(w, "/summary/wall_time_total", wall, "s");
  put_string(w, "/summary/run_end", ends[tr->end]);
  put_string(w, "/summary/run_end_reason", tr->end_reason);
}

int lsim_hybrid_write(const char *path, const LsimHybridModel *m, const double *p,
                      const double *x0, const LsimHybridOptions *opt,
                      const LsimHybridTrace *tr, const char *scene_text, double wall_time,
                      char *err, size_t errlen) {
  /* Under a partial name of its own; only a regular file is replaced (scene/outfile.h). */
  LsimOutFile of;
  if (lsim_outfile_begin(&of, path, err, errlen)) return -1;
  const char *tmp = of.partial;
  Writer w = {.file = -1};
  H5E_BEGIN_TRY { w.file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT); }
  H5E_END_TRY;
  if (w.file < 0) {
    snprintf(err, errlen, "%s: cannot create the file", tmp);
    lsim_outfile_discard(&of);
    return -1;
  }
  H5E_BEGIN_TRY {
    const int version = LSIM_HYBRID_FORMAT_VERSION;
    put(&w, "/format_version", H5T_NATIVE_INT, H5T_STD_I32LE, 0, 0, 0, &version, NULL);
    put_string(&w, "/file_kind", "hybrid");
    put_string(&w, "/lcpsim_version", LSIM_VERSION);
    put_string(&w, "/scene_text", scene_text ? scene_text : "");
    write_options(&w, opt);
    write_model(&w, m, p, x0, tr);
    write_trace(&w, tr);
    write_summary(&w, tr, wall_time);
  }
  H5E_END_TRY;
  const int closed = H5Fclose(w.file) >= 0;
  if (w.failed || !closed) {
    snprintf(err, errlen, "%s: %s", path, w.failed ? w.what : "cannot close the file");
    lsim_outfile_discard(&of);
    return -1;
  }
  return lsim_outfile_commit(&of, err, errlen) ? -1 : 0;
}
