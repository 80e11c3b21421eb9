/* lcp.h: the linear complementarity problem, solver statuses and the common residual.
 *
 * The LCP(M, q): find z in R^n with
 *     w = M z + q,   z >= 0,   w >= 0,   z^T w = 0.
 * M is dense, n x n, column-major (M[i + j*n] = M_ij), the layout Siconos Numerics uses,
 * so a problem can be handed to Siconos without a copy.
 *
 * The residual is computed by this module from z alone (w recomputed), for every solver,
 * ours and Siconos', so that solver comparisons measure the same thing.
 */
#ifndef LSIM_LCP_H
#define LSIM_LCP_H

#include <stddef.h>

/* Status codes, CHOLMOD style: 0 ok, < 0 error, > 0 warning. */
typedef enum LsimStatus {
  LSIM_SOLVED = 0,            /* a solution within the tolerance */
  LSIM_MAX_ITERATIONS = -1,   /* pivot or sweep limit reached before a solution */
  LSIM_SECONDARY_RAY = -2,    /* Lemke: the entering column has no blocking row */
  LSIM_BREAKDOWN = -3,        /* numerical breakdown: singular pivot, non-finite values */
  LSIM_BAD_DIAGONAL = -4,     /* PGS: a zero or negative diagonal entry of M */
  LSIM_SOLVER_FAILED = -5,    /* an external (Siconos) solver reported failure */
  LSIM_INVALID_INPUT = -6,    /* sizes, non-finite data, bad options */
  LSIM_OUT_OF_MEMORY = -7,
  LSIM_UNAVAILABLE = -8,      /* solver unknown, not built, or known to abort */
  LSIM_IO_ERROR = -9,         /* a file could not be read or written */
  LSIM_WARM_START_REJECTED = 1, /* warning: the warm start guess was not usable; cold start */
  /* Statuses of a simulation's step (include/lcpsim/lcpsim.h), here so that
     lsim_status_name knows every code the library returns. */
  LSIM_CONTROLLER_STOPPED = -50, /* a controller asked to stop: the step was not taken */
  LSIM_DIVERGED = -51            /* the divergence guard stopped the run (contact/guard.h) */
} LsimStatus;

/* A short lower-case name for a status ("solved", "secondary_ray", ...); never NULL. */
const char *lsim_status_name(int status);

/* Optional Stewart-Trinkle structure of a contact LCP: the variables of one polyhedral
 * friction cone. The rows of the block read
 *   0 <= beta_k _|_ lambda + D_k' v' >= 0,   0 <= lambda _|_ mu c_n - sum_k beta_k >= 0,
 * so M[dir_k, lambda] = 1, M[lambda, dir_k] = -1, M[lambda, normal] = mu. Solvers that know
 * the structure (PGS: contact-block form) use it; all others see only M and q. */
typedef struct LsimConeBlock {
  int normal;          /* variable of c_n, or -1 when the normal impulse is fixed */
  double fixed_normal; /* the known c_n when normal < 0, N*s */
  int first_dir, ndir; /* beta variables first_dir .. first_dir + ndir - 1 */
  int lambda;          /* the cone's slack variable (sliding speed) */
  double mu;
  int uniform;         /* 1: the directions are unit vectors of one tangent plane, direction
                          k at angle 2 pi k / ndir (ndir = 2: a line and its opposite;
                          otherwise ndir a multiple of 4), as the time step builds them;
                          PGS then solves the cone's friction in closed form in that plane */
} LsimConeBlock;

/* Grows the array *p (elements of elem bytes, capacity *cap) to hold n, doubling from 16;
 * no-op when it fits, so steady-state callers do not allocate. 0 or LSIM_OUT_OF_MEMORY
 * (then *p and *cap are unchanged). */
int lsim_grow(void **p, int *cap, int n, size_t elem);

/* The problem. Owns M (n*n) and q (n) when created by lsim_lcp_init; never owns cones. */
typedef struct LsimLcp {
  int n;
  double *M; /* [n*n] column-major */
  double *q; /* [n] */
  int ncones;                  /* optional structure, 0 / NULL when none */
  const LsimConeBlock *cones;  /* [ncones], not owned */
} LsimLcp;

/* Allocates a zeroed n x n problem. Needs n >= 0. Returns 0 or LSIM_OUT_OF_MEMORY. */
int lsim_lcp_init(LsimLcp *lcp, int n);

/* Frees what lsim_lcp_init allocated and zeroes the struct. NULL-safe. */
void lsim_lcp_free(LsimLcp *lcp);

/* Deep copy of src into dst (dst must be uninitialised or freed). 0 or LSIM_OUT_OF_MEMORY. */
int lsim_lcp_copy(LsimLcp *dst, const LsimLcp *src);

/* 0 when every entry of M and q is finite, else LSIM_INVALID_INPUT. */
int lsim_lcp_check_finite(const LsimLcp *lcp);

/* max_i |q_i|, or 1 when q = 0: the scale relative residuals and tolerances use. */
double lsim_lcp_scale(const LsimLcp *lcp);

/* w = M z + q. Needs w of length n, not aliasing z. */
void lsim_lcp_w(const LsimLcp *lcp, const double *z, double *w);

/* The common quality measures of a candidate solution z. */
typedef struct LsimResidual {
  double natural;         /* max_i |min(z_i, w_i)|: zero iff z solves the LCP */
  double complementarity; /* |z^T w| */
  double z_negative;      /* max(0, -min_i z_i) */
  double w_negative;      /* max(0, -min_i w_i) */
  double relative;        /* natural / lsim_lcp_scale(lcp) */
} LsimResidual;

/* The measures of z with its w [n] already computed (scale: the divisor of `relative`). */
void lsim_residual_of(const double *z, const double *w, int n, double scale, LsimResidual *res);

/* Computes the residual of z, recomputing w = M z + q into the caller's buffer w [n]
 * (the caller keeps w; no allocation). A non-finite z gives residuals of +inf. */
void lsim_lcp_residual(const LsimLcp *lcp, const double *z, double *w, LsimResidual *res);

#endif
