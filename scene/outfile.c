/* outfile.c: output files put in place safely (outfile.h).
 *
 * The target's type is read with lstat (a link then with stat through realpath) when the
 * file is begun and again just before the rename, so a path that became a device or a
 * folder meanwhile is still not replaced. Failure modes: the partial file cannot be made
 * (folder missing or read-only: the system's reason is given), the rename or the copy
 * into a device fails (the partial file is kept and named in the message).
 */
/* realpath is X/Open (POSIX 2008 with XSI), F_OFD_SETLK Linux's: asked for here alone. */
#define _GNU_SOURCE
#include "scene/outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "lcp/lcp.h"

/* What a file type is called in messages. */
static const char *type_name(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISCHR(m)) return "a character device";
  return "not a regular file";
}

/* Where path leads and what is there: 0 with *exists and *st (a link followed to its
 * end, resolved into out), or LSIM_INVALID_INPUT with a message (a link to nothing). */
static int resolve(const char *path, char *out, size_t outlen, int *exists, struct stat *st,
                   char *err, size_t errlen) {
  snprintf(out, outlen, "%s", path);
  *exists = 0;
  if (lstat(path, st) != 0) return 0; /* nothing there (or unreadable: creation will say) */
  *exists = 1;
  if (!S_ISLNK(st->st_mode)) return 0;
  char real[PATH_MAX];
  if (!realpath(path, real) || stat(real, st) != 0) {
    /* A link with no path at its end may still lead somewhere: /dev/stdout, a
       /proc/self/fd/N link to a pipe or socket (stat follows those); judged as that. */
    const int e = errno;
    if (stat(path, st) == 0) return 0;
    snprintf(err, errlen, "%s: output is a symbolic link to nothing (%s); give a file name",
             path, strerror(e));
    return LSIM_INVALID_INPUT;
  }
  if (strlen(real) >= outlen) {
    snprintf(err, errlen, "%s: output path too long", path);
    return LSIM_INVALID_INPUT;
  }
  snprintf(out, outlen, "%s", real);
  return 0;
}

/* path's folder into dir (".", "/" or the part before the last slash); returns path's base
 * name (the part after it, within path). */
static const char *split_folder(const char *path, char *dir, size_t dirlen) {
  const char *slash = strrchr(path, '/');
  if (!slash) snprintf(dir, dirlen, ".");
  else if (slash == path) snprintf(dir, dirlen, "/");
  else snprintf(dir, dirlen, "%.*s", (int)(slash - path), path);
  return slash ? slash + 1 : path;
}

/* The pid of a folder entry named BASE.<pid> or BASE.<pid>-K followed by anything (nb =
 * strlen(base)), *end at what follows; 0 when n is not so named. */
static long partial_pid(const char *n, const char *base, size_t nb, char **end) {
  if (strncmp(n, base, nb) != 0 || n[nb] != '.') return 0;
  errno = 0;
  const long pid = strtol(n + nb + 1, end, 10);
  if (*end == n + nb + 1 || pid <= 0 || errno) return 0;
  if (**end == '-') {
    const char *k = *end + 1;
    strtol(k, end, 10);
    if (*end == k) return 0;
  }
  return pid;
}

/* Whether a partial file of path (PATH.<pid>.partial or PATH.<pid>-K.partial in its
 * folder) other than own is locked by its writer: 1 with its path in other, else 0. */
static int writer_of(const char *path, const char *own, char *other, size_t otherlen) {
  char dir[LSIM_OUTFILE_PATH_MAX];
  const char *base = split_folder(path, dir, sizeof dir);
  const size_t nb = strlen(base);
  DIR *d = opendir(dir);
  if (!d) return 0;
  int found = 0;
  for (struct dirent *e; !found && (e = readdir(d));) {
    const char *n = e->d_name;
    char *end;
    if (!partial_pid(n, base, nb, &end) || strcmp(end, ".partial") != 0) continue;
    /* (named as own is: the same folder part, so that own is skipped) */
    snprintf(other, otherlen, "%.*s%s", (int)(base - path), path, n);
    if (strcmp(other, own) == 0) continue;
    const int fd = open(other, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK, fl.l_whence = SEEK_SET;
    found = fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
    close(fd);
  }
  closedir(d);
  return found;
}

/* The folder of path opened and flock'ed (exclusive) for a writer's begin: the descriptor,
 * whose close lets the lock go, or -1 when the folder takes no flock or another begin holds
 * it for more than 2 s (polled every millisecond: a begin takes well under one). */
static int lock_folder(const char *path) {
  char dir[LSIM_OUTFILE_PATH_MAX];
  split_folder(path, dir, sizeof dir);
  const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  for (int k = 0; k < 2000; ++k) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
    if (errno != EWOULDBLOCK && errno != EINTR) break;
    const struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  close(fd);
  return -1;
}

int lsim_outfile_begin(LsimOutFile *o, const char *path, char *err, size_t errlen) {
  memset(o, 0, sizeof *o);
  if (!path || !path[0]) {
    snprintf(err, errlen, "-o: the output file name is empty");
    return LSIM_INVALID_INPUT;
  }
  if (strlen(path) >= sizeof o->path) {
    snprintf(err, errlen, "%.200s...: output path too long (at most %zu characters)", path,
             sizeof o->path - 1);
    return LSIM_INVALID_INPUT;
  }
  struct stat st;
  int exists;
  int rc = resolve(path, o->path, sizeof o->path, &exists, &st, err, errlen);
  if (rc) return rc;

  /* A character device is written through, unless it is a terminal; others refused. */
  if (exists && S_ISCHR(st.st_mode)) {
    const int fd = open(o->path, O_WRONLY | O_NOCTTY | O_NONBLOCK);
    const int tty = fd >= 0 && isatty(fd);
    if (fd >= 0) close(fd);
    if (fd < 0 || tty) {
      snprintf(err, errlen, "%s: output is %s: refused (an HDF5 file is binary)", path,
               fd < 0 ? "a character device that cannot be opened for writing" : "a terminal");
      return LSIM_INVALID_INPUT;
    }
    const char *dir = getenv("TMPDIR");
    snprintf(o->partial, sizeof o->partial, "%s/lcpsim-out-XXXXXX", dir && *dir ? dir : "/tmp");
    const int tfd = mkstemp(o->partial);
    if (tfd < 0) {
      snprintf(err, errlen, "%s: cannot make a temporary file to write through: %s", path,
               strerror(errno));
      return LSIM_IO_ERROR;
    }
    close(tfd);
    o->through = 1;
    return 0;
  }
  if (exists && !S_ISREG(st.st_mode)) {
    snprintf(err, errlen, "%s: output is %s: refused (only a regular file is replaced)", path,
             type_name(st.st_mode));
    return LSIM_INVALID_INPUT;
  }

  /* The partial file: PATH.<pid>.partial, or PATH.<pid>-K.partial if that exists. It is
     locked first and the others looked at after, so that of two writers begun at once
     neither misses the other. Both could then see the other and both be refused (2 of
     200 pairs of pile_10 runs started together, tests/e2e/live_runs.sh): the folder's flock, held from
     before the partial file is made until it is locked and the others are looked at, puts
     the writers' begins of one folder one after the other, so the first runs and the
     second sees it. A folder that takes no flock (some network disks), or one held for
     more than 2 s (a writer stopped inside its begin), is passed over: lock first, look
     after, as before. */
  const int folder = lock_folder(o->path);
  const long pid = (long)getpid();
  for (int k = 0; k < 100; ++k) {
    if (k == 0) snprintf(o->partial, sizeof o->partial, "%s.%ld.partial", o->path, pid);
    else snprintf(o->partial, sizeof o->partial, "%s.%ld-%d.partial", o->path, pid, k);
    const int fd = open(o->partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      struct flock fl;
      memset(&fl, 0, sizeof fl);
      fl.l_type = F_WRLCK, fl.l_whence = SEEK_SET; /* the whole file */
      if (fcntl(fd, F_OFD_SETLK, &fl) == 0) o->lock = fd + 1;
      else close(fd); /* no such locks here (an old kernel, some network disks): none */
      char other[LSIM_OUTFILE_PATH_MAX + 64];
      if (o->lock && writer_of(o->path, o->partial, other, sizeof other)) {
        snprintf(err, errlen, "%s: another run is writing it now (%s): refused, so that "
                 "neither replaces the other's file; wait for it or give another output",
                 path, other);
        lsim_outfile_discard(o);
        if (folder >= 0) close(folder);
        return LSIM_INVALID_INPUT;
      }
      if (folder >= 0) close(folder);
      return 0;
    }
    if (errno != EEXIST) break;
  }
  const int e = errno;
  if (folder >= 0) close(folder);
  snprintf(err, errlen, "%s: cannot create %s: %s", path, o->partial, strerror(e));
  o->partial[0] = '\0';
  return LSIM_IO_ERROR;
}

/* Copies the partial file into the device; 0 or an errno. */
static int copy_through(const LsimOutFile *o) {
  const int in = open(o->partial, O_RDONLY);
  if (in < 0) return errno;
  const int out = open(o->path, O_WRONLY | O_NOCTTY);
  if (out < 0) {
    const int e = errno;
    close(in);
    return e;
  }
  char buf[65536];
  int e = 0;
  for (;;) {
    ssize_t got = read(in, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      if (got < 0) e = errno;
      break;
    }
    for (ssize_t done = 0; done < got && !e;) {
      const ssize_t put = write(out, buf + done, (size_t)(got - done));
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) e = put < 0 ? errno : EIO;
      else done += put;
    }
    if (e) break;
  }
  close(in);
  if (close(out) != 0 && !e) e = errno;
  return e;
}

/* Lets the partial file's lock go (its descriptor closed). */
static void unlock(LsimOutFile *o) {
  if (o->lock > 0) close(o->lock - 1);
  o->lock = 0;
}

int lsim_outfile_commit(LsimOutFile *o, char *err, size_t errlen) {
  if (!o->partial[0]) return 0;
  if (o->through) {
    const int e = copy_through(o);
    if (e) {
      snprintf(err, errlen, "%s: cannot write through to the device: %s (the data is in %s)",
               o->path, strerror(e), o->partial);
      return LSIM_IO_ERROR;
    }
    unlink(o->partial);
    o->partial[0] = '\0';
    return 0;
  }
  /* Still a regular file or nothing: then replaced at once. */
  struct stat st;
  if (lstat(o->path, &st) == 0 && !S_ISREG(st.st_mode)) {
    snprintf(err, errlen, "%s: output became %s while the run wrote: not replaced (the data is in %s)",
             o->path, type_name(st.st_mode), o->partial);
    return LSIM_IO_ERROR;
  }
  if (rename(o->partial, o->path) != 0) {
    snprintf(err, errlen, "cannot rename %s to %s: %s (the data is in the first)", o->partial,
             o->path, strerror(errno));
    return LSIM_IO_ERROR;
  }
  unlock(o);
  o->partial[0] = '\0';
  return 0;
}

void lsim_outfile_discard(LsimOutFile *o) {
  if (o->partial[0]) unlink(o->partial);
  unlock(o);
  o->partial[0] = '\0';
}

int lsim_outfile_room_low(const LsimOutFile *o, const char *name, double next, double rest,
                          char *why, size_t whylen) {
  if (!o->partial[0]) return 0;
  char dir[LSIM_OUTFILE_PATH_MAX + 64];
  snprintf(dir, sizeof dir, "%s", o->partial);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = '\0';
  struct statvfs fs;
  if (statvfs(slash ? (dir[0] ? dir : "/") : ".", &fs) != 0) return 0;
  double need = 4.0 * (1 << 20) + 2.0 * next;
  if (rest >= 0.0 && rest < need) need = rest;
  const char *shown = o->through ? o->partial : name;
  /* root may use the blocks kept back for it (f_bfree), others f_bavail */
  const double avail = (double)(geteuid() == 0 ? fs.f_bfree : fs.f_bavail) * (double)fs.f_frsize;
  if (avail < need) {
    snprintf(why, whylen, "the disk holding %s has %.3g MB left, less than the next writes "
             "may take (%.3g MB)", shown, avail / 1e6, need / 1e6);
    return 1;
  }
  struct rlimit lim;
  struct stat st;
  if (getrlimit(RLIMIT_FSIZE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY ||
      stat(o->partial, &st) != 0)
    return 0;
  const double left = (double)lim.rlim_cur - (double)st.st_size;
  if (left >= need) return 0;
  snprintf(why, whylen, "the file size limit (ulimit -f) of %.3g MB leaves %s %.3g MB, less "
           "than the next writes may take (%.3g MB)", (double)lim.rlim_cur / 1e6, shown,
           left / 1e6, need / 1e6);
  return 1;
}

double lsim_outfile_size(const LsimOutFile *o) {
  struct stat st;
  return o->partial[0] && stat(o->partial, &st) == 0 ? (double)st.st_size : -1.0;
}

int lsim_outfile_being_written(const char *path) {
  const int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
  if (fd < 0) return 0;
  struct stat st;
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK, fl.l_whence = SEEK_SET;
  const int held = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                   fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
  close(fd);
  return held;
}

int lsim_outfile_same(const char *output, const char *input) {
  struct stat a, b;
  if (!output || !input || stat(output, &a) != 0 || stat(input, &b) != 0) return 0;
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

char *lsim_outfile_absolute(const char *path) {
  char *real = realpath(path, NULL);
  return real ? real : strdup(path);
}

int lsim_outfile_check_inputs(const char *what, const char *output, const char *kind,
                              const char *const *inputs, int ninputs, char *err,
                              size_t errlen) {
  /* The first input that is the output's file is named with it. */
  for (int k = 0; output && inputs && k < ninputs; ++k)
    if (inputs[k] && lsim_outfile_same(output, inputs[k])) {
      snprintf(err, errlen, "%s %s: is the %s %s: refused (it would be replaced)", what, output,
               kind, inputs[k]);
      return LSIM_INVALID_INPUT;
    }
  return 0;
}

int lsim_outfile_leftovers(const char *path, char *first, size_t firstlen) {
  if (first && firstlen) first[0] = '\0';
  char real[LSIM_OUTFILE_PATH_MAX], err[64];
  struct stat st;
  int exists;
  if (!path || !path[0] || strlen(path) >= sizeof real ||
      resolve(path, real, sizeof real, &exists, &st, err, sizeof err))
    return 0;
  if (exists && S_ISCHR(st.st_mode)) return 0; /* written through: no partial file there */
  /* PATH's folder and base name. */
  char dir[LSIM_OUTFILE_PATH_MAX];
  const char *base = split_folder(real, dir, sizeof dir);
  const size_t nb = strlen(base);
  DIR *d = opendir(dir);
  if (!d) return 0;
  int count = 0;
  char best[256] = "";
  for (struct dirent *e; (e = readdir(d));) {
    /* BASE.<pid>.partial or BASE.<pid>-K.partial, whose writer is gone. */
    const char *n = e->d_name;
    char *end;
    const long pid = partial_pid(n, base, nb, &end);
    if (!pid || strncmp(end, ".partial", 8) != 0) continue;
    /* BASE.<pid>.partial.X.partial: a file of that run's own beside it (lcpsim compare
       --trajectory records the reference's run as BASE.<pid>.partial.trajectory, written
       under its partial name), left by the same kill. */
    const size_t rest = strlen(end + 8);
    if (rest && (end[8] != '.' || rest < 10 || strcmp(end + 8 + rest - 8, ".partial") != 0))
      continue;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* still running (or not ours) */
    if (!count++ || strcmp(n, best) < 0) snprintf(best, sizeof best, "%s", n);
  }
  closedir(d);
  if (count && first && firstlen) {
    if (base != real) snprintf(first, firstlen, "%.*s%s", (int)(base - real), real, best);
    else snprintf(first, firstlen, "%s", best);
  }
  return count;
}

int lsim_input_probe(const char *path, char *why, size_t whylen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(why, whylen, "cannot open: %s", strerror(errno));
    return -1;
  }
  struct stat st;
  const int dir = fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode);
  fclose(f);
  if (dir) {
    snprintf(why, whylen, "is a directory");
    return -1;
  }
  return 0;
}
