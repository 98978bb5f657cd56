/* Runs a fuzz target over files, without libFuzzer: each argument is an
 * input file or a directory of them.  Used by ctest for the regression
 * inputs and the seeds, and to reproduce a finding under a debugger. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

static int
run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) || !(buf = malloc((size_t)n + 1)) ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		free(buf);
		if (f)
			fclose(f);
		return 1;
	}
	fclose(f);
	fprintf(stderr, "replay: %s\n", path);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files of a directory, in name order (so runs repeat);
 * subdirectories are not entered. */
static int
run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	int n = 0, bad = 0;

	if (!d) {
		perror(dir);
		return 1;
	}
	while ((e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		names = realloc(names, sizeof *names * (size_t)(n + 1));
		if (!names)
			abort();
		names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
		if (!names[n])
			abort();
		sprintf(names[n], "%s/%s", dir, e->d_name);
		if (stat(names[n], &st) || !S_ISREG(st.st_mode))
			free(names[n]);
		else
			n++;
	}
	closedir(d);
	if (n)
		qsort(names, (size_t)n, sizeof *names, cmp_names);
	for (int i = 0; i < n; i++) {
		bad |= run_file(names[i]);
		free(names[i]);
	}
	free(names);
	return bad;
}

int
main(int argc, char **argv)
{
	int bad = 0, count = 0;
	struct stat st;

	for (int i = 1; i < argc; i++) {
		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 1;
		}
		bad |= S_ISDIR(st.st_mode) ? run_dir(argv[i]) :
					     run_file(argv[i]);
		count++;
	}
	if (!count) {
		fputs("usage: replay FILE|DIR...\n", stderr);
		return 2;
	}
	return bad;
}
