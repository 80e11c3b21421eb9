/* test_record_nd.c: the HDF5 recorder on 2-D and 3-D runs, read back with the HDF5 C API
 * (split from test_record.c, which keeps the 1-D sample, files and run ends, tethers and
 * joints).
 *
 * The 2-D and 3-D samples: hand-made worlds with every body type and shape kind (a
 * static plane, boxes, spheres / disks, capsules, a point), shapes added out of body
 * order, four steps of prescribed states and a few contacts. All values are dyadic
 * rationals, compared with ==.
 *
 * `test_record_nd --write-sample-2d PATH` (and --write-sample-3d) writes a sample file and
 * exits; tests/e2e/record_readers.sh checks the Python and Octave readers on them.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "contact/constraints.h"
#include "contact/contact.h"
#include "contact/step.h"
#include "contact/world.h"
#include "lcp/lcp.h"
#include "scene/record.h"
#include "tests/record_read.h"

/* ---- 2-D and 3-D samples ---- */

#define SQRT_HALF 0.70710678118654752440

/* Adds a shape of the given kind to body b. */
static void add_shape(LsimModel *m, const char *name, LsimShapeType type, int b,
                      double radius, double h0, double h1, double h2, double mu) {
  LsimShape sh = lsim_default_shape();
  snprintf(sh.name, sizeof sh.name, "%s", name);
  sh.type = type;
  sh.body = b;
  sh.radius = radius;
  sh.half[0] = h0;
  sh.half[1] = h1;
  sh.half[2] = h2;
  sh.mu = mu;
  assert_true(lsim_model_add_shape(m, &sh) >= 0);
}

/* The 2-D (dim 2) or 3-D (dim 3) sample world: a static "ground" (2-D: "walls") with
 * plane shapes, a dynamic box "crate" (2-D: "plank", with a capsule knob), a dynamic
 * sphere / disk "ball" (2-D: "disk"), a kinematic "pusher" with a point shape. Shapes
 * are added out of body order; finalize sorts them. h = 0.125, 4 steps. */
static void sample_nd_model(LsimModel *m, LsimState *s, int dim) {
  *m = lsim_default_model();
  m->dimension = dim;
  m->gravity[dim - 1] = -8.0;
  m->time_step = 0.125;
  m->steps = 4;
  m->friction_directions = dim == 3 ? 4 : 2;
  LsimBody b = lsim_default_body();
  strcpy(b.name, dim == 3 ? "ground" : "walls");
  b.type = LSIM_BODY_STATIC;
  assert_int_equal(lsim_model_add_body(m, &b), 0);
  b = lsim_default_body();
  const double half3[3] = {0.5, 0.25, 0.125}, half2[3] = {0.5, 0.125, 0};
  if (dim == 3) {
    strcpy(b.name, "crate");
    b.mass = 2.0;
    lsim_inertia_box(b.mass, half3, b.inertia);
    b.inertia[1] = b.inertia[3] = -0.0078125; /* a product of inertia: off-diagonals */
  } else {
    strcpy(b.name, "plank");
    b.mass = 2.0;
    lsim_inertia_box(b.mass, half2, b.inertia);
  }
  assert_int_equal(lsim_model_add_body(m, &b), 1);
  b = lsim_default_body();
  strcpy(b.name, dim == 3 ? "ball" : "disk");
  b.mass = 1.0;
  if (dim == 3) lsim_inertia_sphere(b.mass, 0.25, b.inertia);
  else lsim_inertia_disk(b.mass, 0.25, b.inertia);
  assert_int_equal(lsim_model_add_body(m, &b), 2);
  b = lsim_default_body();
  strcpy(b.name, "pusher");
  b.type = LSIM_BODY_KINEMATIC;
  assert_int_equal(lsim_model_add_body(m, &b), 3);

  add_shape(m, "floor", LSIM_SHAPE_PLANE, 0, 0, 0, 0, 0, 0.5);
  if (dim == 3) {
    add_shape(m, "ball_shell", LSIM_SHAPE_SPHERE, 2, 0.25, 0, 0, 0, 0.25);
    add_shape(m, "crate_box", LSIM_SHAPE_BOX, 1, 0, 0.5, 0.25, 0.125, 0.75);
    add_shape(m, "crate_handle", LSIM_SHAPE_CAPSULE, 1, 0.0625, 0.25, 0, 0, 0.5);
    LsimShape *h = &m->shapes[m->nshapes - 1];
    h->pos[2] = 0.1875;
    h->rot[0] = SQRT_HALF; /* 90 degrees about y: the capsule axis along x */
    h->rot[2] = SQRT_HALF;
  } else {
    add_shape(m, "plank_bar", LSIM_SHAPE_BOX, 1, 0, 0.5, 0.125, 0, 0.75);
    add_shape(m, "right_wall", LSIM_SHAPE_PLANE, 0, 0, 0, 0, 0, 0.5);
    LsimShape *w = &m->shapes[m->nshapes - 1];
    w->pos[0] = 2.0;
    w->rot[0] = SQRT_HALF; /* 90 degrees about z: normal -x, solid x >= 2 */
    w->rot[3] = SQRT_HALF;
    add_shape(m, "disk_rim", LSIM_SHAPE_SPHERE, 2, 0.25, 0, 0, 0, 0.25);
    add_shape(m, "plank_knob", LSIM_SHAPE_CAPSULE, 1, 0.0625, 0.125, 0, 0, 0.5);
    LsimShape *k = &m->shapes[m->nshapes - 1];
    k->pos[0] = 0.25;
    k->pos[1] = 0.1875;
  }
  add_shape(m, "pusher_tip", LSIM_SHAPE_POINT, 3, 0, 0, 0, 0, 0.5);
  assert_int_equal(lsim_model_finalize(m), 0);
  assert_int_equal(lsim_state_init(s, m), 0);
}

/* Orientations of the 3-D crate at states 0..4: identity, 2 atan(3/4) and 2 atan(4/3)
 * about z, a half turn about z, 120 degrees about (1, 1, 1). */
static const double CRATE_QUAT[5][4] = {
    {1, 0, 0, 0}, {0.8, 0, 0, 0.6}, {0.6, 0, 0, 0.8}, {0, 0, 0, 1}, {0.5, 0.5, 0.5, 0.5}};

/* State k = 0..4 of the sample (time, q, v). */
static void sample_nd_state(const LsimModel *m, LsimState *s, int k) {
  const double x = k;
  s->time = 0.125 * x;
  s->step = k;
  double *q = s->q, *v = s->v;
  if (m->dimension == 3) {
    const double qc[7] = {0.25 * x, 0, 0.125, CRATE_QUAT[k][0], CRATE_QUAT[k][1],
                          CRATE_QUAT[k][2], CRATE_QUAT[k][3]};
    const double qb[7] = {1, 0.5, 1.25 - 0.25 * x, 1, 0, 0, 0};
    const double qp[7] = {-1 + 0.125 * x, 0, 0.125, 1, 0, 0, 0};
    const double vc[6] = {2, 0, 0, 0, 0, 1.5}, vb[6] = {0, 0, -2, 0, 0, 0},
                 vp[6] = {1, 0, 0, 0, 0, 0};
    memcpy(q, qc, sizeof qc);
    memcpy(q + 7, qb, sizeof qb);
    memcpy(q + 14, qp, sizeof qp);
    memcpy(v, vc, sizeof vc);
    memcpy(v + 6, vb, sizeof vb);
    memcpy(v + 12, vp, sizeof vp);
  } else {
    const double qs[9] = {1, 1 - 0.125 * x, 0.25 * x,          /* plank */
                          0.5 + 0.25 * x, 0.25, -0.5 * x,       /* disk */
                          -0.5 + 0.125 * x, 0.125, 0};          /* pusher */
    const double vs[9] = {0, -1, 2, 2, 0, -8, 1, 0, 0};
    memcpy(q, qs, sizeof qs);
    memcpy(v, vs, sizeof vs);
  }
}

/* Step k's contacts (k = 1..4). */
static void sample_nd_contacts(LsimContactSet *set, int dim, int k) {
  lsim_contacts_clear(set);
  LsimContact *c;
  if (k == 2 || (dim == 2 && k == 1)) {
    c = lsim_contacts_add(set, 1);
    assert_non_null(c);
    c->id = lsim_contact_id(2, 0, 0);
    c->body[0] = 2;
    c->body[1] = 0;
    c->point[0] = dim == 3 ? 1 : 0.5 + 0.25 * k;
    c->point[1] = dim == 3 ? 0.5 : 0;
    c->normal[dim - 1] = 1;
    c->normal_impulse = 0.5;
    c->friction_impulse[0] = 0.125;
    c->friction_impulse[1] = dim == 3 ? -0.0625 : 0;
    c->mu = 0.5;
  }
  if (k == 2 || k == 3) {
    c = lsim_contacts_add(set, 1);
    assert_non_null(c);
    c->id = lsim_contact_id(1, 0, 3);
    c->body[0] = 1;
    c->body[1] = 0;
    c->point[0] = 0.5;
    c->point[1] = dim == 3 ? 0.25 : 0;
    c->normal[dim - 1] = 1;
    c->normal_impulse = 1.0;
    c->gap = -0.0078125;
  }
  if (k == 4) {
    c = lsim_contacts_add(set, 1);
    assert_non_null(c);
    c->id = lsim_contact_id(1, 3, 1);
    c->body[0] = 1;
    c->body[1] = 3;
    c->point[0] = -0.5;
    c->point[1] = 0.125;
    c->normal[0] = 1;
    c->normal_impulse = 0.25;
  }
}

/* Records the 2-D or 3-D sample to path; lsim_record_close's status. */
static int write_sample_nd(const char *path, int dim) {
  LsimModel m;
  LsimState s;
  sample_nd_model(&m, &s, dim);
  sample_nd_state(&m, &s, 0);
  LsimRecord *r = NULL;
  char err[512] = "";
  int rc = lsim_record_open(&r, path, &m, &s, "{}\n", "lemke", err, sizeof err);
  if (rc != 0) fprintf(stderr, "%s\n", err);
  assert_int_equal(rc, 0);
  LsimContactSet set;
  memset(&set, 0, sizeof set);
  for (int k = 1; k <= 4; ++k) {
    sample_nd_state(&m, &s, k);
    sample_nd_contacts(&set, dim, k);
    LsimStepStats st = {0};
    st.ncontacts = set.count;
    assert_int_equal(lsim_record_step(r, &m, &s, &set, &st), 0);
  }
  rc = lsim_record_close(r, 1, err, sizeof err);
  if (rc != 0) fprintf(stderr, "%s\n", err);
  lsim_contacts_free(&set);
  lsim_state_free(&s);
  lsim_model_free(&m);
  return rc;
}

/* Writes the dim sample into a fresh directory (path receives the file name), builds its
 * model into m and s, and opens the file for reading. */
static hid_t open_nd_sample(int dim, char *dir, size_t dlen, char *path, size_t plen,
                            LsimModel *m, LsimState *s) {
  temp_dir(dir, dlen);
  snprintf(path, plen, "%s/run%dd.h5", dir, dim);
  assert_int_equal(write_sample_nd(path, dim), 0);
  sample_nd_model(m, s, dim);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_true(f >= 0);
  return f;
}

/* Closes what open_nd_sample opened and removes the file and its directory. */
static void close_nd_sample(hid_t f, const char *dir, const char *path, LsimModel *m,
                            LsimState *s) {
  H5Fclose(f);
  unlink(path);
  rmdir(dir);
  lsim_state_free(s);
  lsim_model_free(m);
}

/* Checks /shapes and the per-body shape ranges against the model (after finalize). */
static void check_shapes(hid_t f, const LsimModel *m, const char *const *names) {
  const int ns = m->nshapes, nb = m->nbodies;
  char s[16][256];
  read_strings(f, "/shapes/name", ns, s);
  for (int i = 0; i < ns; ++i) assert_string_equal(s[i], names[i]);
  int iv[16];
  double dv[16 * 4];
  read_as(f, "/shapes/type", H5T_NATIVE_INT, 1, (hsize_t)ns, 0, iv);
  for (int i = 0; i < ns; ++i) assert_int_equal(iv[i], m->shapes[i].type);
  read_as(f, "/shapes/body", H5T_NATIVE_INT, 1, (hsize_t)ns, 0, iv);
  for (int i = 0; i < ns; ++i) assert_int_equal(iv[i], m->shapes[i].body);
  read_as(f, "/shapes/position", H5T_NATIVE_DOUBLE, 2, (hsize_t)ns, 3, dv);
  for (int i = 0; i < ns; ++i)
    for (int j = 0; j < 3; ++j) assert_true(dv[3 * i + j] == m->shapes[i].pos[j]);
  read_as(f, "/shapes/orientation", H5T_NATIVE_DOUBLE, 2, (hsize_t)ns, 4, dv);
  for (int i = 0; i < ns; ++i)
    for (int j = 0; j < 4; ++j) assert_true(dv[4 * i + j] == m->shapes[i].rot[j]);
  read_as(f, "/shapes/half_extents", H5T_NATIVE_DOUBLE, 2, (hsize_t)ns, 3, dv);
  for (int i = 0; i < ns; ++i)
    for (int j = 0; j < 3; ++j) assert_true(dv[3 * i + j] == m->shapes[i].half[j]);
  read_as(f, "/shapes/radius", H5T_NATIVE_DOUBLE, 1, (hsize_t)ns, 0, dv);
  for (int i = 0; i < ns; ++i) assert_true(dv[i] == m->shapes[i].radius);
  read_as(f, "/shapes/mu", H5T_NATIVE_DOUBLE, 1, (hsize_t)ns, 0, dv);
  for (int i = 0; i < ns; ++i) assert_true(dv[i] == m->shapes[i].mu);
  read_as(f, "/bodies/first_shape", H5T_NATIVE_INT, 1, (hsize_t)nb, 0, iv);
  for (int i = 0; i < nb; ++i) assert_int_equal(iv[i], m->bodies[i].first_shape);
  read_as(f, "/bodies/nshapes", H5T_NATIVE_INT, 1, (hsize_t)nb, 0, iv);
  for (int i = 0; i < nb; ++i) assert_int_equal(iv[i], m->bodies[i].nshapes);
  double inertia[16][3][3];
  read_as(f, "/bodies/inertia", H5T_NATIVE_DOUBLE, 3, (hsize_t)nb, 3, inertia);
  for (int i = 0; i < nb; ++i)
    for (int j = 0; j < 9; ++j) assert_true(inertia[i][j / 3][j % 3] == m->bodies[i].inertia[j]);
}

/* The 3-D sample: shapes sorted by body with their exact geometry, inertia exact, poses,
 * the 7 / 6 coordinate layout, energies as lsim computes them, contact vectors. */
static void test_3d_roundtrip(void **state) {
  (void)state;
  char dir[64], path[128];
  LsimModel m;
  LsimState s;
  hid_t f = open_nd_sample(3, dir, sizeof dir, path, sizeof path, &m, &s);
  assert_int_equal(read_scalar_i(f, "/format_version"), 3);
  assert_int_equal(read_scalar_i(f, "/parameters/dimension"), 3);
  assert_int_equal(read_scalar_i(f, "/parameters/nq"), 21);
  assert_int_equal(read_scalar_i(f, "/parameters/nv"), 18);
  assert_int_equal(read_scalar_i(f, "/parameters/friction_directions"), 4);

  /* Sorted by body: floor, crate_box, crate_handle, ball_shell, pusher_tip. */
  const char *names[5] = {"floor", "crate_box", "crate_handle", "ball_shell", "pusher_tip"};
  check_shapes(f, &m, names);
  int iv[5];
  read_as(f, "/shapes/type", H5T_NATIVE_INT, 1, 5, 0, iv);
  assert_true(iv[0] == LSIM_SHAPE_PLANE && iv[1] == LSIM_SHAPE_BOX &&
              iv[2] == LSIM_SHAPE_CAPSULE && iv[3] == LSIM_SHAPE_SPHERE &&
              iv[4] == LSIM_SHAPE_POINT);
  read_as(f, "/shapes/body", H5T_NATIVE_INT, 1, 5, 0, iv);
  assert_true(iv[0] == 0 && iv[1] == 1 && iv[2] == 1 && iv[3] == 2 && iv[4] == 3);
  double sd[5][4];
  read_as(f, "/shapes/orientation", H5T_NATIVE_DOUBLE, 2, 5, 4, sd);
  assert_true(sd[2][0] == SQRT_HALF && sd[2][1] == 0 && sd[2][2] == SQRT_HALF);
  assert_true(sd[0][0] == 1 && sd[0][3] == 0);
  double hx[5][3];
  read_as(f, "/shapes/half_extents", H5T_NATIVE_DOUBLE, 2, 5, 3, hx);
  assert_true(hx[1][0] == 0.5 && hx[1][1] == 0.25 && hx[1][2] == 0.125 && hx[2][0] == 0.25);
  read_as(f, "/bodies/first_shape", H5T_NATIVE_INT, 1, 4, 0, iv);
  assert_true(iv[0] == 0 && iv[1] == 1 && iv[2] == 3 && iv[3] == 4);
  read_as(f, "/bodies/nshapes", H5T_NATIVE_INT, 1, 4, 0, iv);
  assert_true(iv[0] == 1 && iv[1] == 2 && iv[2] == 1 && iv[3] == 1);
  read_as(f, "/bodies/type", H5T_NATIVE_INT, 1, 4, 0, iv);
  assert_true(iv[0] == 1 && iv[1] == 0 && iv[2] == 0 && iv[3] == 2);

  /* Inertia: the standard solids', exactly; the static ground's is zero. */
  double inertia[4][3][3], I[9];
  read_as(f, "/bodies/inertia", H5T_NATIVE_DOUBLE, 3, 4, 3, inertia);
  const double half[3] = {0.5, 0.25, 0.125};
  lsim_inertia_box(2.0, half, I);
  I[1] = I[3] = -0.0078125;
  for (int j = 0; j < 9; ++j) assert_true(inertia[1][j / 3][j % 3] == I[j]);
  assert_true(inertia[1][0][1] == -0.0078125 && inertia[1][1][0] == -0.0078125);
  assert_true(inertia[1][0][2] == 0 && inertia[1][2][1] == 0);
  assert_true(inertia[1][0][0] == 2.0 * (0.0625 + 0.015625) / 3.0);
  lsim_inertia_sphere(1.0, 0.25, I);
  for (int j = 0; j < 9; ++j) assert_true(inertia[2][j / 3][j % 3] == I[j]);
  assert_true(inertia[2][1][1] == 0.025 && inertia[2][0][1] == 0);
  for (int j = 0; j < 9; ++j) assert_true(inertia[0][j / 3][j % 3] == 0);

  /* Poses: the ground's fixed identity pose, moving bodies' initial coordinates. */
  double pose[4][7];
  read_as(f, "/bodies/pose", H5T_NATIVE_DOUBLE, 2, 4, 7, pose);
  const double ep[4][7] = {{0, 0, 0, 1, 0, 0, 0}, {0, 0, 0.125, 1, 0, 0, 0},
                           {1, 0.5, 1.25, 1, 0, 0, 0}, {-1, 0, 0.125, 1, 0, 0, 0}};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 7; ++j) assert_true(pose[i][j] == ep[i][j]);
  const int eqo[4] = {-1, 0, 7, 14}, evo[4] = {-1, 0, 6, 12};
  read_as(f, "/bodies/q_offset", H5T_NATIVE_INT, 1, 4, 0, iv);
  for (int i = 0; i < 4; ++i) assert_int_equal(iv[i], eqo[i]);
  read_as(f, "/bodies/v_offset", H5T_NATIVE_INT, 1, 4, 0, iv);
  for (int i = 0; i < 4; ++i) assert_int_equal(iv[i], evo[i]);

  /* States: 5 rows of 21 / 18; the crate's quaternion; energies as lsim computes them. */
  double q[5][21], v[5][18], ke[5], pe[5];
  read_as(f, "/q", H5T_NATIVE_DOUBLE, 2, 5, 21, q);
  read_as(f, "/v", H5T_NATIVE_DOUBLE, 2, 5, 18, v);
  read_as(f, "/energy/kinetic", H5T_NATIVE_DOUBLE, 1, 5, 0, ke);
  read_as(f, "/energy/potential", H5T_NATIVE_DOUBLE, 1, 5, 0, pe);
  for (int k = 0; k < 5; ++k) {
    sample_nd_state(&m, &s, k);
    for (int j = 0; j < 21; ++j) assert_true(q[k][j] == s.q[j]);
    for (int j = 0; j < 18; ++j) assert_true(v[k][j] == s.v[j]);
    for (int j = 0; j < 4; ++j) assert_true(q[k][3 + j] == CRATE_QUAT[k][j]);
    assert_true(ke[k] == lsim_kinetic_energy(&m, &s));
    assert_true(pe[k] == lsim_potential_energy(&m, &s));
  }
  assert_true(q[4][9] == 0.25 && pe[0] == 2 * 8 * 0.125 + 8 * 1.25);

  char str[8][256];
  read_strings(f, "/parameters/q_components", 7, str);
  assert_string_equal(str[0], "x");
  assert_string_equal(str[3], "qw");
  assert_string_equal(str[6], "qz");
  read_strings(f, "/parameters/v_components", 6, str);
  assert_string_equal(str[3], "wx");
  read_strings(f, "/parameters/rotation", -1, str); /* the model's default update */
  assert_string_equal(str[0], "lie_midpoint");

  /* Contacts: steps 2 (two), 3 (one), 4 (one). */
  long long off[6];
  read_as(f, "/contacts/offset", H5T_NATIVE_LLONG, 1, 6, 0, off);
  const long long eoff[6] = {0, 0, 0, 2, 3, 4};
  for (int k = 0; k < 6; ++k) assert_int_equal(off[k], eoff[k]);
  double pt[4][3];
  read_as(f, "/contacts/point", H5T_NATIVE_DOUBLE, 2, 4, 3, pt);
  assert_true(pt[0][0] == 1 && pt[0][1] == 0.5 && pt[0][2] == 0 && pt[3][0] == -0.5);
  read_as(f, "/contacts/friction_impulse", H5T_NATIVE_DOUBLE, 2, 4, 3, pt);
  assert_true(pt[0][0] == 0.125 && pt[0][1] == -0.0625 && pt[1][0] == 0);
  read_as(f, "/contacts/normal", H5T_NATIVE_DOUBLE, 2, 4, 3, pt);
  assert_true(pt[0][2] == 1 && pt[3][0] == 1 && pt[3][2] == 0);
  assert_true(read_scalar_d(f, "/summary/max_penetration") == 0.0078125);
  close_nd_sample(f, dir, path, &m, &s);
}

/* The 2-D sample: shapes (two planes on one static body), the 3-coordinate layout, a
 * static pose written as (x, y, theta) with the other columns 0, I_zz. */
static void test_2d_roundtrip(void **state) {
  (void)state;
  char dir[64], path[128];
  LsimModel m;
  LsimState s;
  hid_t f = open_nd_sample(2, dir, sizeof dir, path, sizeof path, &m, &s);
  assert_int_equal(read_scalar_i(f, "/parameters/dimension"), 2);
  assert_int_equal(read_scalar_i(f, "/parameters/nq"), 9);
  assert_int_equal(read_scalar_i(f, "/parameters/nv"), 9);
  const char *names[6] = {"floor", "right_wall", "plank_bar", "plank_knob", "disk_rim",
                          "pusher_tip"};
  check_shapes(f, &m, names);
  int iv[4];
  read_as(f, "/bodies/first_shape", H5T_NATIVE_INT, 1, 4, 0, iv);
  assert_true(iv[0] == 0 && iv[1] == 2 && iv[2] == 4 && iv[3] == 5);
  double pose[4][7];
  read_as(f, "/bodies/pose", H5T_NATIVE_DOUBLE, 2, 4, 7, pose);
  for (int j = 0; j < 7; ++j) assert_true(pose[0][j] == 0); /* no stray pose[3] = 1 */
  assert_true(pose[1][0] == 1 && pose[1][1] == 1 && pose[1][2] == 0 && pose[1][3] == 0);
  assert_true(pose[2][0] == 0.5 && pose[2][1] == 0.25 && pose[3][0] == -0.5);
  double inertia[4][3][3];
  read_as(f, "/bodies/inertia", H5T_NATIVE_DOUBLE, 3, 4, 3, inertia);
  assert_true(inertia[2][2][2] == 0.5 * 0.0625);     /* disk m r^2 / 2 */
  assert_true(inertia[1][2][2] == 2.0 * (0.25 + 0.015625) / 3.0); /* rectangle */
  double q[5][9];
  read_as(f, "/q", H5T_NATIVE_DOUBLE, 2, 5, 9, q);
  assert_true(q[4][5] == -2 && q[4][2] == 1 && q[3][3] == 1.25);
  char str[4][256];
  read_strings(f, "/parameters/q_components", 3, str);
  assert_string_equal(str[2], "theta");
  read_strings(f, "/parameters/v_components", 3, str);
  assert_string_equal(str[2], "omega");
  assert_true(H5Lexists(f, "/parameters/rotation", H5P_DEFAULT) == 0); /* 3-D only */
  long long off[6];
  read_as(f, "/contacts/offset", H5T_NATIVE_LLONG, 1, 6, 0, off);
  const long long eoff[6] = {0, 0, 1, 3, 4, 5};
  for (int k = 0; k < 6; ++k) assert_int_equal(off[k], eoff[k]);
  close_nd_sample(f, dir, path, &m, &s);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--write-sample-2d") == 0)
    return write_sample_nd(argv[2], 2) == 0 ? 0 : 1;
  if (argc == 3 && strcmp(argv[1], "--write-sample-3d") == 0)
    return write_sample_nd(argv[2], 3) == 0 ? 0 : 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_3d_roundtrip),
      cmocka_unit_test(test_2d_roundtrip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
