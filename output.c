/* Output files that appear whole or not at all: a temporary beside the path,
 * renamed over it on commit, or dropped when the path already holds the same
 * bytes, so its mtime stays and ninja's restat skips what depends on it.
 * What is not a regular file (/dev/null, a FIFO) is written in place.  Their
 * time, opened to committed, is the write stage of --stats. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hloplan.h"
#include "driver.h"

struct hloplan_output {
	char *path;		/* NULL: standard output */
	char *tmp;		/* NULL: written in place */
	FILE *f;
	char *buf;		/* f's buffer, or NULL: stdio's own */
	int slot;		/* in temps[], or -1 */
	double *ms;		/* the commit's or abort's time goes here, or
				   NULL */
};

/* A stream's buffer: stdio's default is a block (4 KiB), and a write per
 * block was 6,000 system calls for a header of 24 MB. */
enum { STREAM_BUF = 1 << 20 };

/* The temporaries that exist now, for hloplan_output_remove_temps, which a
 * signal handler may call at any point: a slot is set once its file
 * exists and cleared before the file goes. */
enum { MAX_TEMPS = 64 };
static char *volatile temps[MAX_TEMPS];

static void
track(struct hloplan_output *o)
{
	o->slot = -1;
	for (int k = 0; k < MAX_TEMPS && o->slot < 0; k++)
		if (!temps[k]) {
			temps[k] = o->tmp;
			o->slot = k;
		}
}

/* Forgets o's temporary, before it is renamed or removed. */
static void
untrack(struct hloplan_output *o)
{
	if (o->slot >= 0)
		temps[o->slot] = NULL;
	o->slot = -1;
}

void
hloplan_output_remove_temps(void)
{
	for (int k = 0; k < MAX_TEMPS; k++) {
		char *t = temps[k];

		if (t)
			unlink(t);
	}
}

/* Frees o, keeping errno. */
static void
output_free(struct hloplan_output *o)
{
	int err = errno;

	free(o->path);
	free(o->tmp);
	free(o->buf);
	free(o);
	errno = err;
}

/* Creates path.tmpPID.N with the umask's permissions; the name differs for
 * every open output of a process, and O_EXCL settles any other clash. */
static int
open_temp(struct hloplan_output *o)
{
	size_t n = strlen(o->path) + 64;
	uintptr_t salt = (uintptr_t)o;
	int fd = -1;

	if (!(o->tmp = malloc(n)))
		return -1;
	for (int k = 0; fd < 0 && k < 100; k++) {
		snprintf(o->tmp, n, "%s.tmp%ld.%lx", o->path, (long)getpid(),
			 (unsigned long)(salt + (uintptr_t)k));
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			  0666);
		if (fd < 0 && errno != EEXIST)
			return -1;
	}
	if (fd < 0)
		return -1;
	track(o);
	if (!(o->f = fdopen(fd, "w"))) {
		close(fd);
		untrack(o);
		unlink(o->tmp);
		return -1;
	}
	return 0;
}

/* 1 when path exists and is not a regular file: renaming over a device or
 * a FIFO would replace it. */
static int
is_special(const char *path)
{
	struct stat st;

	return !stat(path, &st) && !S_ISREG(st.st_mode);
}

struct hloplan_output *
hloplan_output_open(const char *path)
{
	struct hloplan_output *o;

	if (!path || !*path) {
		errno = EINVAL;
		return NULL;
	}
	if (!(o = calloc(1, sizeof *o)))
		return NULL;
	o->slot = -1;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return o;
	}
	if (!(o->path = strdup(path)) ||
	    (is_special(path) ? !(o->f = fopen(path, "w")) : open_temp(o) < 0)) {
		output_free(o);
		return NULL;
	}
	/* Without a buffer of one's own, glibc ignores the size. */
	if ((o->buf = malloc(STREAM_BUF)))
		setvbuf(o->f, o->buf, _IOFBF, STREAM_BUF);
	return o;
}

void
output_time_into(struct hloplan_output *o, double *ms)
{
	o->ms = ms;
}

FILE *
hloplan_output_stream(struct hloplan_output *o)
{
	return o->f;
}

/* Flushes f; 0, or the error (errno, EIO when stdio kept none). */
static int
flush_stream(FILE *f)
{
	errno = 0;
	return fflush(f) || ferror(f) ? (errno ? errno : EIO) : 0;
}

int
hloplan_output_flush(struct hloplan_output *o)
{
	double t0 = stats_now();
	int err = flush_stream(o->f);

	if (o->ms)
		*o->ms += stats_now() - t0;
	if (!err)
		return 0;
	errno = err;
	return -1;
}

/* 1 when files a and b hold the same bytes; 0 when not, or b is missing.
 * Files of different sizes are not read. */
static int
same_bytes(const char *a, const char *b)
{
	struct stat sa, sb;
	FILE *fa, *fb;
	char *ba, *bb;
	size_t na, nb;
	int same;

	if (stat(a, &sa) || stat(b, &sb) || sa.st_size != sb.st_size)
		return 0;
	fa = fopen(a, "rb"), fb = fopen(b, "rb");
	ba = malloc(STREAM_BUF), bb = malloc(STREAM_BUF);
	same = fa && fb && ba && bb;
	while (same) {
		na = fread(ba, 1, STREAM_BUF, fa);
		nb = fread(bb, 1, STREAM_BUF, fb);
		same = na == nb && !memcmp(ba, bb, na) && !ferror(fa) &&
		       !ferror(fb);
		if (na < STREAM_BUF)
			break;
	}
	free(ba);
	free(bb);
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/* Flushes and closes f; 0, or the error (errno, EIO when stdio kept none). */
static int
close_stream(FILE *f)
{
	int err = flush_stream(f);

	if (fclose(f) && !err)
		err = errno ? errno : EIO;
	return err;
}

static int
commit_file(struct hloplan_output *o)
{
	int err = close_stream(o->f);

	untrack(o);	/* from here it is renamed or removed */
	if (!err && same_bytes(o->tmp, o->path)) {
		unlink(o->tmp);
		return 0;
	}
	if (!err && rename(o->tmp, o->path))
		err = errno;
	if (!err)
		return 0;
	unlink(o->tmp);
	errno = err;
	return -1;
}

static int
close_in_place(FILE *f)
{
	int err = close_stream(f);

	if (err)
		errno = err;
	return err ? -1 : 0;
}

int
hloplan_output_commit(struct hloplan_output *o)
{
	double t0 = stats_now(), *ms = o->ms;
	int r;

	if (o->tmp)
		r = commit_file(o);
	else if (o->path)
		r = close_in_place(o->f);
	else
		r = fflush(stdout) || ferror(stdout) ? -1 : 0;
	output_free(o);
	if (ms)
		*ms += stats_now() - t0;
	return r;
}

void
hloplan_output_abort(struct hloplan_output *o)
{
	int err = errno;
	double t0 = stats_now(), *ms;

	if (!o)
		return;
	ms = o->ms;
	if (o->path)
		fclose(o->f);
	untrack(o);
	if (o->tmp)
		unlink(o->tmp);
	output_free(o);
	if (ms)
		*ms += stats_now() - t0;
	errno = err;
}

int
hloplan_output_finish(struct hloplan_output **o, int n, int bad)
{
	for (int k = 0; k < n; k++) {
		if (!o[k])
			continue;
		if (bad >= 0)
			hloplan_output_abort(o[k]);
		else if (hloplan_output_commit(o[k]) < 0)
			bad = k;
	}
	return bad;
}
