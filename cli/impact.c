/* impact.c: lcpsim impact: the post-impact velocities and impulses if a named set of
 * contacts closes in a scene's initial state (hybrid/event_driven.h, lsim_impact_map). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "contact/contact.h"
#include "hybrid/event_driven.h"
#include "lcp/lcp.h"
#include "scene/scene.h"

static void impact_usage(FILE *f) {
  fprintf(f,
          "usage: lcpsim impact SCENE.json --close A:B[,C:D...] [--sequential | --simultaneous]\n"
          "\n"
          "For the scene's initial state, the contacts between each named pair of bodies (their\n"
          "nearest features, wherever the bodies are) close at once while the scene's joints hold:\n"
          "prints every moving body's velocity before and after the impact and the impulses of the\n"
          "closing contacts and joint rows (Newton's law with the pairs' restitution, the friction\n"
          "cone; the impact LCP of the event-driven integrator). The friction impulse is a world\n"
          "vector (x, y in 2-D; x, y, z in 3-D). 2-D and 3-D scenes without kinematic bodies or\n"
          "moving anchors (the event-driven integrator's scope; else exit 2 naming them).\n"
          "\n"
          "  --sequential   resolve the contacts pair by pair, the fastest approaching first, until\n"
          "                 none approaches (event_driven.impacts \"sequential\"): a row of equal\n"
          "                 balls with e = 1 then passes the striker's velocity on to the last one\n"
          "                 (Newton's cradle); the impulses printed are each contact's sums\n"
          "  --simultaneous one LCP over all the contacts (event_driven.impacts \"simultaneous\")\n"
          "                 Without either, the scene's event_driven.impacts (default simultaneous).\n");
}

static int body_named(const LsimModel *m, const char *name, int len) {
  for (int i = 0; i < m->nbodies; ++i)
    if ((int)strlen(m->bodies[i].name) == len && !strncmp(m->bodies[i].name, name, (size_t)len)) return i;
  return -2;
}

/* The name of row c of the impact's rows: "joint NAME (x)" (a pin's rows along the world
 * axes, a rod's "(along a-b)": each on the first end's body, the second end taking its
 * opposite) or "contact A:B". */
static void row_name(const LsimModel *m, const LsimContactSet *out, int c, char *name,
                     size_t size) {
  const LsimContact *ct = &out->contacts[c];
  if (ct->kind == LSIM_CONTACT_EQUALITY) {
    int k = 0; /* the row's axis: the joint's rows before it */
    while (c - 1 - k >= 0 && out->contacts[c - 1 - k].kind == LSIM_CONTACT_EQUALITY &&
           out->contacts[c - 1 - k].source == ct->source)
      ++k;
    const LsimJoint *jt = &m->joints[ct->source];
    snprintf(name, size, "joint %s (%s)", jt->name,
             jt->type == LSIM_JOINT_ROD ? "along a-b" : k == 0 ? "x" : k == 1 ? "y" : "z");
  } else {
    snprintf(name, size, "contact %s:%s", ct->body[0] >= 0 ? m->bodies[ct->body[0]].name : "world",
             ct->body[1] >= 0 ? m->bodies[ct->body[1]].name : "world");
  }
}

int lsim_cli_impact(int argc, char **argv) {
  const char *scene = NULL, *close = NULL;
  int law = -1; /* LSIM_IMPACTS_*, -1: the scene's */
  const char *seen[16]; /* options met (lsim_cli_once) */
  int nseen = 0;
  for (int i = 0; i < argc; ++i) {
    /* (--close A:B --close C:D kept C:D alone) */
    if (!strcmp(argv[i], "--close") && lsim_cli_once("lcpsim impact", argv[i], seen, &nseen, 16))
      return 2;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      impact_usage(stdout);
      return 0;
    }
    if (!strcmp(argv[i], "--close")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "lcpsim impact: --close needs a list of pairs A:B\n");
        return 2;
      }
      close = argv[++i];
      if (!close[0]) { /* (an empty list printed the state unchanged, exit 0) */
        fprintf(stderr, "lcpsim impact: --close needs a list of pairs A:B, got ''\n");
        return 2;
      }
    } else if (!strcmp(argv[i], "--sequential") || !strcmp(argv[i], "--simultaneous")) {
      const int want = strcmp(argv[i], "--sequential") ? LSIM_IMPACTS_SIMULTANEOUS : LSIM_IMPACTS_SEQUENTIAL;
      if (law >= 0 && law != want) {
        fprintf(stderr, "lcpsim impact: --sequential and --simultaneous exclude each other\n");
        return 2;
      }
      law = want;
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "lcpsim impact: unknown option '%s'\n", argv[i]);
      return 2;
    } else if (!scene) {
      scene = argv[i];
    } else {
      fprintf(stderr, "lcpsim impact: one scene only\n");
      return 2;
    }
  }
  if (!scene || !close) {
    fprintf(stderr, "lcpsim impact: %s (see lcpsim impact --help)\n",
            scene ? "--close A:B is required" : "no SCENE.json given");
    return 2;
  }
  LsimModel m;
  LsimState st;
  LsimSceneError serr;
  char msg[2048];
  if (lsim_scene_load(scene, &m, &st, NULL, &serr)) {
    lsim_scene_error_format(&serr, msg, sizeof msg);
    fprintf(stderr, "lcpsim: %s\n", msg);
    return 2;
  }
  if (law >= 0) m.event_impacts = law;
  /* The pairs: "A:B" separated by commas. */
  int npairs = 0, rc = 0;
  int *pairs = calloc(strlen(close) + 1, 2 * sizeof(int));
  for (const char *p = close; pairs && *p && !rc;) {
    const char *comma = strchr(p, ','), *end = comma ? comma : p + strlen(p);
    const char *colon = memchr(p, ':', (size_t)(end - p));
    const int a = colon ? body_named(&m, p, (int)(colon - p)) : -2;
    const int b = colon ? body_named(&m, colon + 1, (int)(end - colon - 1)) : -2;
    if (a < 0 || b < 0) {
      fprintf(stderr, "lcpsim impact: --close: '%.*s' is not a pair of body names A:B of %s\n",
              (int)(end - p), p, scene);
      rc = 2;
    }
    /* A body with itself, or a pair named twice (either order: its contacts were
       counted twice, the impulse split between the copies), is refused. */
    for (int k = 0; !rc && k <= npairs; ++k) {
      const int same = k == npairs ? a == b
                                   : (pairs[2 * k] == a && pairs[2 * k + 1] == b) ||
                                         (pairs[2 * k] == b && pairs[2 * k + 1] == a);
      if (same) {
        fprintf(stderr, "lcpsim impact: --close: '%.*s' %s\n", (int)(end - p), p,
                k == npairs ? "pairs a body with itself" : "is named twice");
        rc = 2;
      }
    }
    pairs[2 * npairs] = a, pairs[2 * npairs + 1] = b, ++npairs;
    p = comma ? comma + 1 : end;
  }
  double *v_plus = calloc((size_t)m.nv + 1, sizeof(double));
  LsimContactSet out;
  memset(&out, 0, sizeof out);
  if (!rc && (!pairs || !v_plus)) rc = 2;
  if (!rc && lsim_impact_map(&m, &st, npairs, pairs, v_plus, &out, msg, sizeof msg)) {
    fprintf(stderr, "lcpsim impact: %s: %s\n", scene, msg);
    rc = 2;
  }
  if (!rc) {
    /* The name columns as wide as their widest entry (at least 16 and 34), in terminal
       columns: padded by bytes, a body named 箱0 stood a column left of the others' numbers,
       and a name past 16 characters pushed its row's numbers right. */
    int wb = 16, wr = 34;
    for (int i = 0; i < m.nbodies; ++i)
      if (m.bodies[i].nv > 0 && lsim_cli_text_columns(m.bodies[i].name) > wb)
        wb = lsim_cli_text_columns(m.bodies[i].name);
    for (int c = 0; c < out.count; ++c) {
      char name[128];
      row_name(&m, &out, c, name, sizeof name);
      if (lsim_cli_text_columns(name) > wr) wr = lsim_cli_text_columns(name);
    }
    lsim_cli_print_left("body", wb);
    printf(" %-10s %s\n", "", "velocity (the state's layout: linear, then angular)");
    for (int i = 0; i < m.nbodies; ++i) {
      const LsimBody *b = &m.bodies[i];
      if (b->nv == 0) continue;
      for (int pass = 0; pass < 2; ++pass) {
        lsim_cli_print_left(pass ? "" : b->name, wb);
        printf(" %-10s", pass ? "after" : "before");
        for (int d = 0; d < b->nv; ++d) printf(" %15.9g", (pass ? v_plus : st.v)[b->v_offset + d]);
        printf("\n");
      }
    }
    printf("\n");
    lsim_cli_print_left("row", wr);
    printf(" %15s %s\n", "impulse (N s)", "friction impulse on the first body (N s)");
    for (int c = 0; c < out.count; ++c) {
      const LsimContact *ct = &out.contacts[c];
      char name[128];
      row_name(&m, &out, c, name, sizeof name);
      lsim_cli_print_left(name, wr);
      printf(" %15.9g", ct->normal_impulse);
      /* The friction vector's world components: x, y in 2-D (its z is 0 there), x, y, z. */
      if (ct->kind != LSIM_CONTACT_EQUALITY)
        for (int d = 0; d < m.dimension; ++d) printf(" %15.9g", ct->friction_impulse[d]);
      printf("\n");
    }
  }
  lsim_contacts_free(&out);
  free(pairs), free(v_plus);
  lsim_state_free(&st);
  lsim_model_free(&m);
  return rc;
}
