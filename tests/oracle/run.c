/* oracle: runs each module of an HLO file with every value in its own
 * allocation and inside each of several plans' arenas, and compares the
 * results bit for bit.  Exit 0 identical, 1 a plan that differs and that
 * verify accepted, 3 a plan verify refused, 77 skipped (an op it cannot
 * run, or too big), 2 usage, input or planning errors. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/oracle/identity.h"
#include "tests/oracle/trial.h"

static void
usage(FILE *out)
{
	fputs("usage: oracle [options] FILE.hlo\n"
	      "  --seed N        parameters' random data (default 1)\n"
	      "  --max-arena B   skip modules whose plan needs over B bytes\n"
	      "  --budget N      skip runs of over N element operations\n"
	      "  --break         overlap two buffers live at once in the "
	      "first plan:\n"
	      "                  exit 0 only when the oracle sees it\n"
	      "  --mutate        overlap each such pair in turn and count "
	      "those seen\n"
	      "  --mutate-contract  give each output XLA runs in place, and "
	      "each done's\n"
	      "                  array, a buffer of its own in turn: exit 0 "
	      "only when\n"
	      "                  the oracle sees every one\n"
	      "  --fill-elided   run elided constants ({...}) with random "
	      "data\n"
	      "  --data-only     no check that an op's output leaves its "
	      "operands alone:\n"
	      "                  only differences in the results count\n"
	      "  --print         print the reference run's result arrays\n"
	      "  --from-json     run each plan as read back from the JSON "
	      "hloplan writes\n"
	      "                  (positions, buffers, copies, slots), not "
	      "the library's\n"
	      "  --json-dir DIR  --from-json's files: DIR/MODULE.VARIANT.json,"
	      " read as they\n"
	      "                  are when they exist\n"
	      "  --identity      run each plan, read back from its JSON, by "
	      "value identity:\n"
	      "                  no data, each byte range tagged with the "
	      "value it holds\n"
	      "                  (any size; a conditional's branch by --seed, "
	      "then each)\n"
	      "  --json FILE     --identity on every plan of hloplan's --json "
	      "FILE of it\n"
	      "  --trips N       --identity: loops of unknown trip count run "
	      "N times\n"
	      "                  (default 2)\n"
	      "  --trace         print each instruction run, where its "
	      "output lives\n"
	      "                  and its first element, on stderr\n"
	      "  --quiet         print only differences and errors\n", out);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n + 65536 + 1 > cap) {
			char *b = realloc(buf, cap = 2 * cap + 65536 + 1);

			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got > 0);
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

static int
parse_args(int argc, char **argv, struct trial *t, const char **file,
	   const char **json)
{
	for (int k = 1; k < argc; k++) {
		const char *a = argv[k];

		if (!strcmp(a, "--seed") && k + 1 < argc)
			t->seed = strtoull(argv[++k], NULL, 0);
		else if (!strcmp(a, "--max-arena") && k + 1 < argc)
			t->max_bytes = strtoll(argv[++k], NULL, 0);
		else if (!strcmp(a, "--budget") && k + 1 < argc)
			t->budget = strtoll(argv[++k], NULL, 0);
		else if (!strcmp(a, "--break"))
			t->mutate = MUTATE_ONE;
		else if (!strcmp(a, "--mutate"))
			t->mutate = MUTATE_ALL;
		else if (!strcmp(a, "--mutate-contract"))
			t->mutate = MUTATE_CONTRACT;
		else if (!strcmp(a, "--quiet"))
			t->quiet = 1;
		else if (!strcmp(a, "--fill-elided"))
			t->fill_elided = 1;
		else if (!strcmp(a, "--data-only"))
			t->data_only = 1;
		else if (!strcmp(a, "--print"))
			t->print = 1;
		else if (!strcmp(a, "--from-json"))
			t->contract = 1;
		else if (!strcmp(a, "--json-dir") && k + 1 < argc)
			t->json_dir = argv[++k];
		else if (!strcmp(a, "--identity"))
			t->identity = 1;
		else if (!strcmp(a, "--json") && k + 1 < argc)
			*json = argv[++k];
		else if (!strcmp(a, "--trips") && k + 1 < argc)
			t->trips = strtoll(argv[++k], NULL, 0);
		else if (!strcmp(a, "--trace"))
			t->trace = 1;
		else if (!strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (a[0] == '-' || *file) {
			usage(stderr);
			return -1;
		} else {
			*file = a;
		}
	}
	if (!*file) {
		usage(stderr);
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct trial t = {.seed = 1, .out = stdout};
	const char *file = NULL, *json = NULL;
	char *text;
	size_t len;
	int r;

	if (parse_args(argc, argv, &t, &file, &json) < 0)
		return 2;
	text = slurp(file, &len);
	if (!text) {
		fprintf(stderr, "oracle: cannot read %s\n", file);
		return 2;
	}
	t.file = file;
	r = json ? identity_json(&t, text, len, json) :
	    trial_file(&t, text, len);
	free(text);
	return r;
}
