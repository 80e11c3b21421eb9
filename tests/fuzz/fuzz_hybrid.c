/* fuzz_hybrid: hybrid-model scene JSON (lsim_hybrid_scene_detect, lsim_hybrid_scene_parse:
 * the "hybrid" object of `lcpsim SCENE.json`, docs/hybrid.md). An error must come back
 * with its message; an accepted scene names a registered model. */
#include "fuzz.h"
#include "hybrid/scene.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = lsim_fuzz_text(data, size);
  if (lsim_hybrid_scene_detect(text)) {
    LsimHybridScene s;
    LsimSceneError err;
    memset(&err, 0, sizeof err);
    if (lsim_hybrid_scene_parse(text, "fuzz.json", &s, &err)) {
      if (!err.message[0]) abort();
    } else if (!s.model) {
      abort();
    }
  }
  free(text);
  return 0;
}
