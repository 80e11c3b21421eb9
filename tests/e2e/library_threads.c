/* library_threads.c: two threads use the library at once, as the header allows (one
 * simulation per thread; different simulations are independent), built against
 * build/liblcpsim.so by library_threads.sh and run under Valgrind's DRD, which reports any
 * conflicting access without a happens-before order (the first calls build the solver
 * name tables and set the BLAS thread count once: they must be ordered, not raced).
 * Each thread solves an LCP and a frictional contact problem (first: nothing else orders
 * the threads' first calls), then loads a scene and steps it with its solver; the results must equal the same work done alone, bit for bit. */
#include <lcpsim/lcpsim.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Work {
  const char *solver; /* the scene's run and the LCP's solver */
  double q[64];       /* the scene's q after the run */
  double z[2], r[3];  /* the LCP's and the frictional contact problem's solutions */
  int rc;
} Work;

static const char *scene =
    "{\"lcpsim\": 1, \"dimension\": 2, \"time_step\": 0.01, \"steps\": 20, \"gravity\": [0, -9.81],\n"
    " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"plane\"}]},\n"
    "  {\"name\": \"box\", \"mass\": 1, \"position\": [0, 0.25], \"velocity\": [1, 0],\n"
    "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.25, 0.25]}]}]}";

static void *work(void *arg) {
  Work *w = arg;
  char err[512];
  const double M[4] = {2, 1, 1, 2}, q[2] = {-1, -1};
  w->rc = lsim_solve_lcp(w->solver, 2, M, q, w->z, NULL, NULL, err, sizeof err);
  if (w->rc) return fprintf(stderr, "solve_lcp %s: %s\n", w->solver, err), NULL;
  const double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, qf[3] = {-1, 2, 0}, mu[1] = {0.5};
  w->rc = lsim_solve_fc("nsgs", 3, 1, W, qf, mu, 0, w->r, NULL, NULL, err, sizeof err);
  if (w->rc) return fprintf(stderr, "solve_fc: %s\n", err), NULL;
  LsimSim *sim;
  w->rc = lsim_sim_load_json(&sim, scene, "threads", err, sizeof err);
  if (w->rc) return fprintf(stderr, "load: %s\n", err), NULL;
  if ((w->rc = lsim_sim_set_solver(sim, w->solver, NULL)) != 0 || (w->rc = lsim_sim_run(sim, 20)) != 0)
    return fprintf(stderr, "%s: %s\n", w->solver, lsim_sim_error(sim)), lsim_sim_free(sim), NULL;
  memcpy(w->q, lsim_sim_q(sim), (size_t)lsim_sim_nq(sim) * sizeof(double));
  lsim_sim_free(sim);
  return NULL;
}

int main(void) {
  const char *solvers[2] = {"siconos:lemke", "siconos:pgs"};
  Work par[2], alone[2];
  memset(par, 0, sizeof par), memset(alone, 0, sizeof alone);
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) par[i].solver = alone[i].solver = solvers[i];
  for (int i = 0; i < 2; ++i)
    if (pthread_create(&t[i], NULL, work, &par[i])) return fprintf(stderr, "pthread_create failed\n"), 1;
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  for (int i = 0; i < 2; ++i) work(&alone[i]);
  for (int i = 0; i < 2; ++i) {
    if (par[i].rc || alone[i].rc) return fprintf(stderr, "%s: status %d / %d\n", solvers[i], par[i].rc, alone[i].rc), 1;
    if (memcmp(par[i].q, alone[i].q, sizeof par[i].q) || memcmp(par[i].z, alone[i].z, sizeof par[i].z) ||
        memcmp(par[i].r, alone[i].r, sizeof par[i].r))
      return fprintf(stderr, "%s: the threaded results differ from the same work alone\n", solvers[i]), 1;
  }
  printf("two threads: results equal to the same work alone (%s, %s)\n", solvers[0], solvers[1]);
  return 0;
}
