/* fuzz_scene: scene JSON text -> world (lsim_sim_load_json: parse, validate, build the
 * stepper), the output settings (lsim_scene_output), then a few steps of small scenes so
 * that what the validator lets through is also stepped. Any error must come back as a
 * status with a message; sanitizers catch the rest. */
#include "fuzz.h"
#include "include/lcpsim/lcpsim.h"
#include "scene/scene.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = lsim_fuzz_text(data, size);
  char err[1024];
  LsimSim *sim = NULL;
  const int rc = lsim_sim_load_json(&sim, text, "fuzz.json", err, sizeof err);
  if (rc < 0) {
    if (sim || !err[0]) abort(); /* an error without its message, or a half-made sim */
  } else {
    if (!sim) abort();
    LsimSceneOutput out;
    LsimSceneError se;
    if (lsim_scene_output(text, "fuzz.json", &out, &se) < 0) abort(); /* loaded, so valid */
    /* Step only small worlds, the solver capped at 100 iterations: the parser is the
       target, not the solvers' speed (uninstrumented, a hard exact-cone step takes 30 ms;
       instrumented and on a busy machine, seconds). */
    if (lsim_sim_body_count(sim) <= 12) {
      LsimSolverConfig cfg;
      char name[128];
      snprintf(name, sizeof name, "%s", lsim_sim_solver(sim));
      if (lsim_sim_solver_config(sim, &cfg) == 0 && (cfg.max_iter == 0 || cfg.max_iter > 100)) {
        cfg.max_iter = 100;
        if (lsim_sim_set_solver(sim, name, &cfg) < 0) abort(); /* the scene's own solver */
      }
      lsim_sim_run(sim, 3);
    }
    lsim_sim_free(sim);
  }
  free(text);
  return 0;
}
