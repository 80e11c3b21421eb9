/* outfile.h: output files put in place safely (docs/output-format.md, "Output files").
 *
 * A file is written under a name of its own, PATH.<pid>.partial in PATH's folder, made
 * with O_EXCL (never an existing file), and moved to PATH at the end with rename(), which
 * is atomic: readers see the old file or the new one, never half of one. The partial file
 * is locked while it is written (an open file description's fcntl lock, F_OFD_SETLK,
 * released by the close or the writer's end, a kill included): a second writer of the same
 * PATH, in another process or the same one, is refused at its start while the first
 * writes, naming the first's partial file (two runs of one -o had each finished and the
 * last rename replaced the other's file without a word).
 * Only a regular file (or nothing) is ever replaced. PATH naming:
 *   - a regular file, or nothing: written as above;
 *   - a character device (/dev/null, a terminal): written through: the data goes to a
 *     temporary file (TMPDIR or /tmp) and is copied into the device at the end; the
 *     device node stays as it is;
 *   - a directory, FIFO, socket or block device: refused (LSIM_INVALID_INPUT);
 *   - a symbolic link: what it points to, by the same rules (the link stays); a link to
 *     nothing is refused.
 * An output that is one of the run's inputs (same device and inode) is refused too.
 */
#ifndef LSIM_OUTFILE_H
#define LSIM_OUTFILE_H

#include <stddef.h>

#define LSIM_OUTFILE_PATH_MAX 4096
/* A message buffer that holds any of this module's messages whole: up to three paths
 * (the output, its partial file, a temporary file) and the words around them. */
#define LSIM_OUTFILE_MSG_MAX (3 * LSIM_OUTFILE_PATH_MAX + 512)

typedef struct LsimOutFile {
  char path[LSIM_OUTFILE_PATH_MAX];         /* where the result goes (a link resolved) */
  char partial[LSIM_OUTFILE_PATH_MAX + 64]; /* where it is written meanwhile */
  int through;                              /* 1: path is a character device */
  int lock;  /* 1 + the descriptor that holds the partial file's lock; 0: none */
} LsimOutFile;

/* Checks path as an output and reserves its partial file (created empty, mode 0666 less
 * the umask, and locked). 0, or LSIM_INVALID_INPUT (what path names cannot be replaced, or
 * another writer's locked partial file of path is there: "PATH: another run is writing it
 * now (PARTIAL): refused ...") / LSIM_IO_ERROR (the partial file cannot be made) with a
 * one-line message naming path. */
int lsim_outfile_begin(LsimOutFile *o, const char *path, char *err, size_t errlen);

/* Puts the finished partial file in place: rename over path (checked again: still a
 * regular file or nothing), or for a device the bytes copied into it and the partial
 * removed. 0, or < 0 with a message; on failure the partial file is kept and named. */
int lsim_outfile_commit(LsimOutFile *o, char *err, size_t errlen);

/* Removes the partial file (a run that failed before it had anything to keep). */
void lsim_outfile_discard(LsimOutFile *o);

/* After a flush of o's partial file: is there room for the next writes and the close?
 * A write that fails on a full disk leaves a file HDF5 cannot read ("wrong B-tree
 * signature": a flush cut short), and the run lost every row. next is what the caller's
 * next flush may write (a new chunk of each dataset, say); the close adds HDF5's 1 MB
 * blocks of metadata and small data. rest, when >= 0, is the most the whole rest of the
 * run can write, its close included (a run near its end, or a small one: the 4 MB floor
 * stopped a 1.6 MB run under a 3 MB limit at its first flush); the room asked is then the
 * smaller of the two. When the disk holding the partial file has less than that room
 * (4 MB plus twice next, or rest), or a file size limit (RLIMIT_FSIZE, ulimit -f: a disk as full
 * as the limit less the file's size; past it a write fails with EFBIG, or SIGXFSZ kills)
 * leaves less, returns 1 with why set to "the disk holding NAME has X MB left, less than
 * the next writes may take (Y MB)" or "the file size limit (ulimit -f) of L MB leaves NAME
 * X MB, less than ..." (NAME: name, or the partial file for a character device); the
 * caller stops the run there and closes the file, which then still fits. 0 while there is
 * room, or when the room cannot be read (why untouched). */
int lsim_outfile_room_low(const LsimOutFile *o, const char *name, double next, double rest,
                          char *why, size_t whylen);

/* The bytes of o's partial file now, or -1 when it cannot be read. */
double lsim_outfile_size(const LsimOutFile *o);

/* Partial files of path left by runs that ended without closing them (killed: their
 * process is gone): files PATH.<pid>.partial or PATH.<pid>-K.partial in PATH's folder (a
 * link followed) whose pid is not a running process, and the partial files of such a
 * run's own (PATH.<pid>.partial.X.<pid2>.partial: a comparison's --trajectory record). Returns how many; first gets the
 * path of the first by name ("" when none). Nothing is removed: they hold what the killed
 * runs wrote up to their last flush (docs/output-format.md, "Output files"). */
int lsim_outfile_leftovers(const char *path, char *first, size_t firstlen);

/* 1 when path is a partial file a running writer holds locked (lsim_outfile_begin's
 * F_OFD_SETLK lock, kept until that run ends: a stopped run's too), else 0 (no lock, or
 * none can be read: a killed run's file, a finished one, a disk without such locks). Its
 * readers see it as of the writer's last flush, while the writer goes on. */
int lsim_outfile_being_written(const char *path);

/* 1 if output and input name the same existing file (device and inode), else 0. */
int lsim_outfile_same(const char *output, const char *input);

/* A malloc'd absolute form of path, links resolved (realpath), or a copy of path as given
 * when that fails (a missing file); the caller frees it. NULL only when out of memory:
 * the name of an input kept to compare outputs with later (a chdir then does not matter). */
char *lsim_outfile_absolute(const char *path);

/* Refuses an output that is one of a run's inputs, which writing it would replace: needs
 * what (the output's name in messages: "output", "-o"), kind (the inputs': "input file",
 * "scene file"), inputs[ninputs] (NULL entries skipped). When output names the same
 * existing file as an input (lsim_outfile_same: links followed), LSIM_INVALID_INPUT with
 * "WHAT OUTPUT: is the KIND INPUT: refused (it would be replaced)" in err; else 0 with err
 * untouched. Touches no file. */
int lsim_outfile_check_inputs(const char *what, const char *output, const char *kind,
                              const char *const *inputs, int ninputs, char *err,
                              size_t errlen);

/* Whether path can be opened as an input file: 0, or -1 with why set to "cannot open:
 * REASON" (missing, unreadable) or "is a directory". HDF5's open tells neither apart from
 * a file of another kind: a missing run file was "cannot open as an HDF5 file". */
int lsim_input_probe(const char *path, char *why, size_t whylen);

#endif
