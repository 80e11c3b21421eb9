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
    /* Step only small worlds: the parser is the target, not the solvers' speed. */
    if (lsim_sim_body_count(sim) <= 12) lsim_sim_run(sim, 3);
    lsim_sim_free(sim);
  }
  free(text);
  return 0;
}
