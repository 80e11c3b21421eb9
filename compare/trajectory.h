/* trajectory.h: a shadow comparison's reference trajectory kept in its compare file
 * (lcpsim compare --trajectory): the driver's run recorded as an ordinary run file
 * (scene/record.h), then copied under /trajectory of the compare file, so the file holds
 * the states the solvers' problems came from (lcpsim view draws them). Private to
 * compare/. */
#ifndef LSIM_COMPARE_TRAJECTORY_H
#define LSIM_COMPARE_TRAJECTORY_H

#include <stddef.h>
#include <stdint.h>

/* Copies every object at the root of the HDF5 file src_path (a closed run record) into
 * the group "trajectory" made in dst (an open file or group, an hid_t as int64_t: the
 * compare file's tail, lsim_compare_tail), datasets and groups alike, byte for byte. 0, or < 0 with err naming the file or object. */
int lsim_compare_trajectory_copy(int64_t dst, const char *src_path, char *err, size_t errlen);

#endif
