/* pd_pendulum.c: a PD-controlled pendulum pushes a box into a wall (lcpsim's C API).
 *
 * A 2-D world built in code: frictionless ground and wall, a box on the ground, and a
 * pendulum (a disk bob of mass m on a massless arm of length L, pinned to the world) whose
 * motor applies the PD torque tau = kp (theta_ref - theta) - kd omega, set by a controller
 * before every step. The pendulum swings right, pushes the box until it meets the wall,
 * and everything comes to rest with the bob pressing the box into the wall. At rest the
 * moments about the pivot balance (the pin's reaction has none):
 *     tau - m g L sin(theta) - F L cos(theta) = 0,
 * F the horizontal push of the box on the bob (frictionless contacts: along the normal),
 * which the box passes on to the wall. The program prints the measured and predicted F.
 *
 *   cc pd_pendulum.c $(pkg-config --cflags --libs lcpsim) -o pd_pendulum && ./pd_pendulum
 */
#include <lcpsim/lcpsim.h>
#include <math.h>
#include <stdio.h>

typedef struct Pd {
  int body;           /* the pendulum's body index */
  double kp, kd, ref; /* N m / rad, N m s / rad, rad */
  double tau;         /* the last torque, N m */
} Pd;

/* Called before every step: reads theta and omega, sets the motor torque. */
static int pd_control(LsimSim *sim, void *user) {
  Pd *pd = user;
  LsimBodyInfo b;
  lsim_sim_body(sim, pd->body, &b);
  const double theta = lsim_sim_q(sim)[b.q_offset + 2], omega = lsim_sim_v(sim)[b.v_offset + 2];
  pd->tau = pd->kp * (pd->ref - theta) - pd->kd * omega;
  const double f[3] = {0.0, 0.0, pd->tau};
  return lsim_sim_set_force(sim, pd->body, f);
}

int main(void) {
  const double g = 9.81, m = 1.0, L = 1.0, r = 0.1, h = 0.005;
  const double pivot[2] = {0.0, 1.2}, wall_x = 0.75;
  char err[512];
  LsimSim *sim = NULL;
  if (lsim_sim_create(&sim, 2, h, err, sizeof err)) {
    fprintf(stderr, "pd_pendulum: %s\n", err);
    return 2;
  }
  const double grav[2] = {0.0, -g};
  lsim_sim_set_gravity(sim, grav);

  /* Ground (the plane y = 0) and a wall whose left face is at x = wall_x, frictionless. */
  LsimBodyDef def = lsim_default_body_def();
  LsimShapeDef shape = lsim_default_shape_def();
  def.name = "ground", def.type = LSIM_STATIC;
  const int ground = lsim_sim_add_body(sim, &def);
  shape.type = LSIM_PLANE, shape.mu = 0.0;
  lsim_sim_add_shape(sim, ground, &shape);
  def.name = "wall", def.position[0] = wall_x + 0.1, def.position[1] = 1.0;
  const int wall = lsim_sim_add_body(sim, &def);
  shape.type = LSIM_BOX, shape.half[0] = 0.1, shape.half[1] = 1.0;
  lsim_sim_add_shape(sim, wall, &shape);

  /* The box: 0.4 m square, 1 kg, resting on the ground 0.1 m from the wall. */
  def = lsim_default_body_def();
  def.name = "box", def.mass = 1.0, def.inertia[2] = 1.0 * (0.04 + 0.04) / 3.0;
  def.position[0] = 0.45, def.position[1] = 0.2;
  const int box = lsim_sim_add_body(sim, &def);
  shape = lsim_default_shape_def();
  shape.type = LSIM_BOX, shape.half[0] = shape.half[1] = 0.2, shape.mu = 0.0;
  lsim_sim_add_shape(sim, box, &shape);

  /* The pendulum: a disk bob hanging straight down from the pivot, pinned at (0, L) in
     its own frame. */
  def = lsim_default_body_def();
  def.name = "pendulum", def.mass = m, def.inertia[2] = 0.5 * m * r * r;
  def.position[0] = pivot[0], def.position[1] = pivot[1] - L;
  const int bob = lsim_sim_add_body(sim, &def);
  shape = lsim_default_shape_def();
  shape.type = LSIM_SPHERE, shape.radius = r, shape.mu = 0.0;
  lsim_sim_add_shape(sim, bob, &shape);
  LsimJointDef pin = {.name = "pivot", .type = LSIM_PIN, .body = {bob, -1},
                      .point = {{0.0, L, 0.0}, {pivot[0], pivot[1], 0.0}}};
  lsim_sim_add_joint(sim, &pin);
  if (lsim_sim_start(sim)) {
    fprintf(stderr, "pd_pendulum: %s\n", lsim_sim_error(sim));
    lsim_sim_free(sim);
    return 2;
  }

  /* The controller, then 12 s of simulated time. */
  Pd pd = {.body = bob, .kp = 20.0, .kd = 4.0, .ref = 0.8, .tau = 0.0};
  lsim_sim_set_controller(sim, pd_control, &pd);
  const int rc = lsim_sim_run(sim, (int)(12.0 / h + 0.5));
  if (rc < 0) {
    fprintf(stderr, "pd_pendulum: %s\n", lsim_sim_error(sim));
    lsim_sim_free(sim);
    return 1;
  }

  /* The state at rest and the forces: contacts of the last step, impulse / h. */
  LsimBodyInfo bi, xi;
  lsim_sim_body(sim, bob, &bi);
  lsim_sim_body(sim, box, &xi);
  const double theta = lsim_sim_q(sim)[bi.q_offset + 2];
  const double box_right = lsim_sim_q(sim)[xi.q_offset] + 0.2;
  double f_wall = 0.0, f_bob = 0.0;
  LsimContactInfo c[16];
  const int nc = lsim_sim_contacts(sim, c, 16);
  for (int k = 0; k < nc; ++k) {
    const int other = c[k].body[0] == box ? c[k].body[1] : c[k].body[1] == box ? c[k].body[0] : -2;
    if (other == wall) f_wall += c[k].normal_impulse / h;
    if (other == bob) f_bob += c[k].normal_impulse / h;
  }
  const double tau = pd.kp * (pd.ref - theta);
  const double predicted = (tau - m * g * L * sin(theta)) / (L * cos(theta));
  printf("theta %.9f rad, motor torque %.9f N m, box right face %.9f m (wall at %.2f)\n", theta,
         tau, box_right, wall_x);
  printf("push predicted %.9f N, bob on box %.9f N, wall on box %.9f N\n", predicted, f_bob,
         f_wall);
  lsim_sim_free(sim);
  return 0;
}
