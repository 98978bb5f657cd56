/* Tests of the library API (include/hloplan.h) through nothing but it: plans
 * and options, diagnostics as data and text, every writer, depfiles, and
 * output files that are atomic and left alone when unchanged. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "hloplan.h"

static const char add_hlo[] =
	"HloModule add\n"
	"\n"
	"ENTRY %add (a: f32[64], b: f32[64]) -> f32[64] {\n"
	"  %a = f32[64]{0} parameter(0)\n"
	"  %b = f32[64]{0} parameter(1)\n"
	"  %c = f32[64]{0} add(%a, %b)\n"
	"  ROOT %d = f32[64]{0} reverse(%c), dimensions={0}\n"
	"}\n";

static struct hloplan_result *
plan(const struct hloplan_options *o)
{
	return hloplan_plan_string(add_hlo, sizeof add_hlo - 1, "add.hlo", o);
}

/* What a writer gives, as a malloc'd string. */
static char *
written(const struct hloplan_result *r, int format, const char *name)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(hloplan_write(r, format, f, name), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(strlen(text), len);
	return text;
}

static const struct hloplan_buffer *
find(const struct hloplan_plan *p, const char *name)
{
	for (int i = 0; i < p->nbuffer; i++)
		if (!strcmp(p->buffers[i].name, name))
			return &p->buffers[i];
	fail_msg("no buffer '%s'", name);
	return NULL;
}

/* The verifier's main rule from outside: buffers of one space that are live
 * at once share no byte, and all lie inside their arena. */
static void
check_disjoint(const struct hloplan_plan *p)
{
	for (int i = 0; i < p->nbuffer; i++) {
		const struct hloplan_buffer *x = &p->buffers[i];
		int64_t arena = -1;

		for (int a = 0; a < p->narena; a++)
			if (p->arenas[a].space == x->space)
				arena = p->arenas[a].size;
		if (!x->in_arena)
			continue;
		assert_true(x->offset >= 0 && x->offset + x->size <= arena);
		assert_int_equal(x->offset % p->align, 0);
		for (int j = 0; j < i; j++) {
			const struct hloplan_buffer *y = &p->buffers[j];

			if (!y->in_arena || y->space != x->space ||
			    x->end < y->start || y->end < x->start)
				continue;
			assert_true(x->offset + x->size <= y->offset ||
				    y->offset + y->size <= x->offset);
		}
	}
}

/* ---- plans -------------------------------------------------------------- */

static void
test_defaults(void **state)
{
	struct hloplan_result *r = plan(NULL);
	const struct hloplan_plan *gpu, *tpu;

	(void)state;
	assert_int_equal(hloplan_status(r), HLOPLAN_OK);
	assert_int_equal(hloplan_ndiag(r), 0);
	assert_int_equal(hloplan_nplan(r), 2);
	gpu = hloplan_get_plan(r, 0);
	tpu = hloplan_get_plan(r, 1);
	assert_null(hloplan_get_plan(r, 2));
	assert_string_equal(gpu->module, "add");
	assert_int_equal(gpu->target, HLOPLAN_TARGET_GPU);
	assert_int_equal(tpu->target, HLOPLAN_TARGET_TPU);
	assert_string_equal(gpu->prefix, "HLOPLAN_GPU");
	assert_string_equal(tpu->prefix, "HLOPLAN_TPU");
	assert_int_equal(gpu->align, 256);
	assert_int_equal(gpu->nstep, 4);
	assert_non_null(gpu->steps);
	assert_string_equal(gpu->steps[2], "add/c");
	assert_int_equal(gpu->narena, 1);
	assert_int_equal(gpu->arenas[0].space, 0);
	assert_int_equal(gpu->arenas[0].lower_bound, 1024);
	assert_true(gpu->arenas[0].size >= 1024);
	assert_int_equal(gpu->ncopy, 0);
	check_disjoint(gpu);
	check_disjoint(tpu);
	hloplan_free(r);
}

static void
test_buffers(void **state)
{
	struct hloplan_result *r = plan(NULL);
	const struct hloplan_plan *gpu = hloplan_get_plan(r, 0);
	const struct hloplan_plan *tpu = hloplan_get_plan(r, 1);
	const struct hloplan_buffer *a = find(gpu, "a"), *d = find(gpu, "d");

	(void)state;
	assert_int_equal(a->flags, HLOPLAN_BUF_PARAM);
	assert_int_equal(a->start, 0);
	assert_int_equal(a->size, 256);
	assert_int_equal(a->bytes, 256);
	assert_int_equal(a->slots, 1);
	assert_int_equal(a->stride, 0);
	assert_true(a->in_arena);
	assert_int_equal(d->flags, HLOPLAN_BUF_OUTPUT);
	assert_int_equal(d->end, 3);
	/* TPU pads 64 elements to 128. */
	assert_int_equal(find(tpu, "a")->size, 512);
	assert_int_equal(find(tpu, "a")->bytes, 256);
	hloplan_free(r);
}

static void
test_options(void **state)
{
	struct hloplan_options o = {0};
	struct hloplan_result *r;
	const struct hloplan_plan *p;

	(void)state;
	o.targets = HLOPLAN_TARGET_GPU;
	o.align = 1024;
	o.io_out_of_arena = 1;
	o.prefix = "NET";
	r = plan(&o);
	assert_int_equal(hloplan_status(r), HLOPLAN_OK);
	assert_int_equal(hloplan_nplan(r), 1);
	p = hloplan_get_plan(r, 0);
	assert_string_equal(p->prefix, "NET_GPU");
	assert_int_equal(p->align, 1024);
	assert_false(find(p, "a")->in_arena);
	assert_int_equal(find(p, "a")->offset, -1);
	assert_true(find(p, "c")->in_arena);
	assert_int_equal(find(p, "c")->size, 1024);
	check_disjoint(p);
	hloplan_free(r);
}

static void
test_capacity(void **state)
{
	struct hloplan_capacity cap = {0, 512};
	struct hloplan_options o = {0};
	struct hloplan_result *r;
	const struct hloplan_diag *d;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	o.targets = HLOPLAN_TARGET_GPU;
	o.capacities = &cap;
	o.ncapacity = 1;
	r = plan(&o);
	assert_int_equal(hloplan_status(r), HLOPLAN_ERR_INPUT);
	assert_int_equal(hloplan_nplan(r), 0);
	assert_true(hloplan_ndiag(r) >= 1);
	d = hloplan_get_diag(r, 0);
	assert_non_null(strstr(d->message, "512"));
	/* The notes list the buffers live at the peak, largest first, as
	 * XLA's out-of-memory report does; the text shows them last. */
	assert_non_null(d->notes);
	assert_non_null(strstr(d->notes, "'c', a temporary: 256 bytes\n"
				       "        shape: f32[64]{0}\n"));
	assert_non_null(strstr(d->notes, "instruction: 'c' (add) in "
				       "computation 'add'\n"));
	f = open_memstream(&text, &len);
	assert_int_equal(hloplan_write_diags(r, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "^\n  the peak is at step "));
	assert_int_equal(strcmp(text + strlen(text) - strlen(d->notes),
				d->notes), 0);
	free(text);
	hloplan_free(r);
}

/* Options out of range are refused before anything is parsed. */
static void
test_bad_options(void **state)
{
	static const char *const why[] = {
		"align", "slots", "tpu_tile", "prefix", "capacities", "dump",
		"schedule", "targets", "double_buffer", "constants",
		"threads", "threads",
	};
	struct hloplan_capacity caps[17] = {{0, 0}};
	const char *null_name = NULL;

	(void)state;
	for (int k = 0; k < (int)(sizeof why / sizeof *why); k++) {
		struct hloplan_options o = {0};
		struct hloplan_result *r;

		o.align = k == 0 ? 3 : 0;
		o.slots = k == 1 ? 1 : 0;
		o.tpu_tile[0] = k == 2 ? 8 : 0;
		o.prefix = k == 3 ? "lower" : NULL;
		o.capacities = caps;
		o.ncapacity = k == 4 ? 17 : 0;
		o.dump = k == 5 ? "bogus" : NULL;
		o.dump_file = stderr;
		o.schedule = k == 6 ? 7 : 0;
		o.targets = k == 7 ? 4 : 0;
		o.double_buffer = &null_name;
		o.ndouble_buffer = k == 8;
		o.constants = k == 9 ? "out/" : NULL;
		o.threads = k == 10 ? -1 : k == 11 ? HLOPLAN_THREADS_MAX + 1 : 0;
		r = plan(&o);
		assert_int_equal(hloplan_status(r), HLOPLAN_ERR_OPTIONS);
		assert_int_equal(hloplan_ndiag(r), 1);
		assert_non_null(strstr(hloplan_get_diag(r, 0)->message,
				       why[k]));
		hloplan_free(r);
	}
}

/* A raw packing problem through the library: the defaults with no
 * options, the same offsets with threads, options checked. */
static void
test_pack_csv(void **state)
{
	char path[] = "/tmp/hloplan_test_pack_XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	char *a = NULL, *b = NULL, *d = NULL;
	size_t na = 0, nb = 0, nd = 0;
	FILE *fa = open_memstream(&a, &na), *fb = open_memstream(&b, &nb);
	FILE *fd2 = open_memstream(&d, &nd);
	struct hloplan_options o = {0};
	struct hloplan_pack_stats st = {0};

	(void)state;
	assert_non_null(f);
	fputs("id,lower,upper,size\n0,0,2,100\n1,1,3,200\n2,2,4,100\n", f);
	fclose(f);
	assert_int_equal(hloplan_pack_csv(path, NULL, fa, fd2, &st),
			 HLOPLAN_OK);
	assert_int_equal(st.buffers, 3);
	assert_int_equal(st.lower, 300);
	assert_int_equal(st.height, 300);
	o.threads = 3;
	assert_int_equal(hloplan_pack_csv(path, &o, fb, fd2, NULL), HLOPLAN_OK);
	fclose(fa);
	fclose(fb);
	assert_string_equal(a, b);
	o.threads = -1;
	assert_int_equal(hloplan_pack_csv(path, &o, stdout, fd2, NULL),
			 HLOPLAN_ERR_OPTIONS);
	fclose(fd2);
	assert_non_null(strstr(d, "threads: expected"));
	remove(path);
	free(a);
	free(b);
	free(d);
}

/* samples/scan_layers.hlo streams a weight per layer: two slots by default,
 * k with slots = k, one with no_double_buffer. */
static int
max_slots(int slots, int off)
{
	struct hloplan_options o = {0};
	struct hloplan_result *r;
	const struct hloplan_plan *p;
	int most = 0;

	o.targets = HLOPLAN_TARGET_GPU;
	o.slots = slots;
	o.no_double_buffer = off;
	r = hloplan_plan_file(HLOPLAN_SAMPLES "/scan_layers.hlo", &o);
	assert_int_equal(hloplan_status(r), HLOPLAN_OK);
	p = hloplan_get_plan(r, 0);
	for (int i = 0; i < p->nbuffer; i++) {
		if (p->buffers[i].slots > most)
			most = p->buffers[i].slots;
		if (p->buffers[i].slots > 1)
			assert_int_equal(p->buffers[i].size,
					 p->buffers[i].slots *
						 p->buffers[i].stride);
	}
	check_disjoint(p);
	hloplan_free(r);
	return most;
}

static void
test_double_buffer(void **state)
{
	(void)state;
	assert_int_equal(max_slots(0, 0), 2);
	assert_int_equal(max_slots(3, 0), 3);
	assert_int_equal(max_slots(0, 1), 1);
}

static char *path(const char *name);

static double
dist(double x)
{
	return x < 0 ? -x : x;
}

/* The index of the stage named name. */
static int
stage(const char *name)
{
	for (int k = 0; k < hloplan_nstage(); k++)
		if (!strcmp(hloplan_stage_name(k), name))
			return k;
	fail_msg("no stage '%s'", name);
	return -1;
}

static void
test_stages(void **state)
{
	struct hloplan_result *r = plan(NULL);
	int n = hloplan_nstage();
	double sum = 0, total;

	(void)state;
	assert_true(n > 2);
	assert_string_equal(hloplan_stage_name(0), "read");
	assert_string_equal(hloplan_stage_name(1), "parse");
	assert_string_equal(hloplan_stage_name(n - 1), "other");
	assert_null(hloplan_stage_name(n));
	assert_null(hloplan_stage_name(-1));
	for (int k = 0; k < n; k++) {
		assert_true(hloplan_stage_ms(r, k) >= 0);
		sum += hloplan_stage_ms(r, k);
	}
	/* "other" grows with the time between the calls: no less than the
	 * total before them, no more than the one after. */
	total = hloplan_total_ms(r);
	assert_true(sum <= total);
	assert_true(sum > 0);
	assert_non_null(hloplan_version());
	hloplan_free(r);
}

/* Each "NAME": V in the stats JSON's time_ms, summed; *total its total. */
static double
json_times(const char *json, double *total)
{
	const char *s = strstr(json, "\"time_ms\": {");
	double sum = 0, v;
	char name[64];
	int used, n = 0;

	assert_non_null(s);
	s += strlen("\"time_ms\": {");
	while (sscanf(s, " \"%63[^\"]\": %lf%n", name, &v, &used) == 2) {
		assert_true(v >= 0);
		if (!strcmp(name, "total"))
			*total = v;
		else
			sum += v, n++;
		s += used;
		if (*s == ',')
			s++;
	}
	assert_int_equal(n, hloplan_nstage());
	assert_int_equal(*s, '}');
	return sum;
}

/* The stages add up to the total (the run from the plan to the
 * statistics) within the rounding of what is printed; no timing is
 * asserted. */
static void
test_stages_sum(void **state)
{
	struct hloplan_result *r =
		hloplan_plan_file(HLOPLAN_SAMPLES "/mlp.hlo", NULL);
	char *h, *json, *text, *t;
	double sum = 0, total = -1, v;
	int n = 0, used;

	(void)state;
	assert_int_equal(hloplan_status(r), HLOPLAN_OK);
	h = written(r, HLOPLAN_FORMAT_HEADER, "plan.h");
	assert_int_equal(hloplan_write_file(r, HLOPLAN_FORMAT_JSON,
					    path("plan.json")), 0);
	assert_true(hloplan_stage_ms(r, stage("codegen")) > 0);
	json = written(r, HLOPLAN_FORMAT_STATS_JSON, NULL);
	assert_non_null(strstr(json, "\"version\": 3"));
	sum = json_times(json, &total);
	assert_true(total > 0);
	assert_true(dist(sum - total) <= 0.0005 * (hloplan_nstage() + 1));
	/* The text: "hloplan: time read 0.01 ms, ..., other 0.02 ms; total
	 * 0.50 ms". */
	text = written(r, HLOPLAN_FORMAT_STATS, NULL);
	t = strstr(text, "hloplan: time ");
	assert_non_null(t);
	t += strlen("hloplan: time ");
	sum = 0;
	for (; sscanf(t, "%*s %lf ms%n", &v, &used) == 1; n++) {
		assert_true(v >= 0);
		t += used;
		if (!strncmp(t, "; total ", 8)) {
			assert_int_equal(sscanf(t + 8, "%lf", &total), 1);
			break;
		}
		sum += v;
		assert_int_equal(*t++, ',');
	}
	assert_int_equal(n + 1, hloplan_nstage());
	assert_true(dist(sum + v - total) <= 0.005 * (hloplan_nstage() + 1));
	unlink(path("plan.json"));
	free(h);
	free(json);
	free(text);
	hloplan_free(r);
}

/* The allocator replays are a stage of their own: 0 without the option,
 * time with it, so that the stages still sum to the whole. */
static void
test_allocators_timed(void **state)
{
	struct hloplan_options o = {0};
	struct hloplan_result *r = plan(NULL);

	(void)state;
	assert_true(hloplan_stage_ms(r, stage("allocators")) == 0);
	hloplan_free(r);
	o.allocators = 1;
	r = plan(&o);
	assert_int_equal(hloplan_status(r), HLOPLAN_OK);
	assert_true(hloplan_stage_ms(r, stage("allocators")) > 0);
	hloplan_free(r);
}

/* The outputs are the codegen stage: 0 until one is written, then the
 * time it took; the statistics themselves are not counted.  Files written
 * through the library are its write stage. */
static void
test_codegen_timed(void **state)
{
	struct hloplan_result *r = plan(NULL);
	int cg = stage("codegen"), wr = stage("write");
	struct hloplan_output *o;
	char *h;
	double t;

	(void)state;
	assert_true(hloplan_stage_ms(r, cg) == 0);
	assert_true(hloplan_stage_ms(r, wr) == 0);
	free(written(r, HLOPLAN_FORMAT_STATS, NULL));
	assert_true(hloplan_stage_ms(r, cg) == 0);
	h = written(r, HLOPLAN_FORMAT_HEADER, NULL);
	t = hloplan_stage_ms(r, cg);
	assert_true(t > 0);
	free(written(r, HLOPLAN_FORMAT_JSON, NULL));
	assert_true(hloplan_stage_ms(r, cg) > t);
	assert_true(hloplan_stage_ms(r, wr) == 0);
	o = hloplan_output_open_timed(path("plan.h"), r);
	assert_non_null(o);
	t = hloplan_stage_ms(r, wr);
	assert_true(t > 0);
	assert_int_equal(hloplan_write(r, HLOPLAN_FORMAT_HEADER,
				       hloplan_output_stream(o), "plan.h"), 0);
	assert_int_equal(hloplan_output_commit(o), 0);
	assert_true(hloplan_stage_ms(r, wr) > t);
	free(h);
	hloplan_free(r);
}

/* ---- diagnostics -------------------------------------------------------- */

static void
test_syntax_error(void **state)
{
	static const char bad[] =
		"HloModule m\n"
		"ENTRY %e {\n"
		"  %a = f32[4]{0} parameter(0)\n"
		"  ROOT %b = f32[4]{0} add(%a, %nope)\n"
		"}\n";
	struct hloplan_result *r;
	const struct hloplan_diag *d;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	r = hloplan_plan_string(bad, sizeof bad - 1, "dir/m.hlo", NULL);
	assert_int_equal(hloplan_status(r), HLOPLAN_ERR_INPUT);
	assert_int_equal(hloplan_nplan(r), 0);
	assert_int_equal(hloplan_ndiag(r), 1);
	d = hloplan_get_diag(r, 0);
	assert_string_equal(d->file, "dir/m.hlo");
	assert_int_equal(d->line, 4);
	assert_int_equal(d->col, 31);
	assert_non_null(strstr(d->message, "nope"));
	assert_null(d->notes);
	assert_null(hloplan_get_diag(r, 1));
	f = open_memstream(&text, &len);
	assert_int_equal(hloplan_write_diags(r, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "dir/m.hlo:4:31: error: "));
	assert_non_null(strstr(text, "ROOT %b = f32[4]{0} add(%a, %nope)\n"));
	assert_non_null(strstr(text, "^\n"));
	free(text);
	/* No plans: nothing to write. */
	errno = 0;
	assert_int_equal(hloplan_write(r, HLOPLAN_FORMAT_HEADER, stdout, NULL),
			 -1);
	assert_int_equal(errno, EINVAL);
	hloplan_free(r);
}

static void
test_missing_file(void **state)
{
	struct hloplan_result *r = hloplan_plan_file("/no/such/m.hlo", NULL);

	(void)state;
	assert_int_equal(hloplan_status(r), HLOPLAN_ERR_IO);
	assert_int_equal(hloplan_ndiag(r), 1);
	assert_string_equal(hloplan_get_diag(r, 0)->file, "/no/such/m.hlo");
	assert_int_equal(hloplan_get_diag(r, 0)->line, 0);
	assert_string_equal(hloplan_get_diag(r, 0)->message, strerror(ENOENT));
	hloplan_free(r);
}

/* ---- writers ------------------------------------------------------------ */

static void
test_header(void **state)
{
	struct hloplan_result *r = plan(NULL);
	char *named = written(r, HLOPLAN_FORMAT_HEADER, "out/add_plan.h");
	char *plain = written(r, HLOPLAN_FORMAT_HEADER, NULL);
	char *again = written(r, HLOPLAN_FORMAT_HEADER, NULL);

	(void)state;
	assert_non_null(strstr(named, "#ifndef HLOPLAN_GPU_ADD_PLAN_H\n"));
	assert_non_null(strstr(named, "generated by hloplan from add.hlo"));
	assert_non_null(strstr(plain, "#ifndef HLOPLAN_GPU_PLAN_H\n"));
	assert_non_null(strstr(plain, "#define HLOPLAN_GPU_ARENA_SIZE "));
	assert_non_null(strstr(plain, "#define HLOPLAN_GPU_BUF_A 0\n"));
	assert_non_null(strstr(plain, "#define HLOPLAN_TPU_BUF(name) "
				      "HLOPLAN_GPU_BUF_##name\n"));
	assert_string_equal(plain, again);
	free(named);
	free(plain);
	free(again);
	assert_int_equal(hloplan_write(r, 99, stdout, NULL), -1);
	hloplan_free(r);
}

static void
test_json(void **state)
{
	static const char head[] = "{\n  \"schema\": \"hloplan.plan\",\n"
				   "  \"version\": 7,\n"
				   "  \"source\": \"add.hlo\",\n";
	struct hloplan_result *r = plan(NULL);
	char *j = written(r, HLOPLAN_FORMAT_JSON, NULL);
	char *again = written(r, HLOPLAN_FORMAT_JSON, NULL);

	(void)state;
	assert_int_equal(strncmp(j, head, sizeof head - 1), 0);
	assert_non_null(strstr(j, "{\"id\": 0, \"name\": \"a\", \"class\": "
			       "[\"param\"], \"flags\": 1, \"space\": 0, "
			       "\"in_arena\": true, \"offset\": "));
	assert_non_null(strstr(j, "\"size\": 512, \"bytes\": 256, "
			       "\"interval\": [0, 3], \"slots\": 1, "
			       "\"stride\": 0, \"dtype\": \"f32\", \"dims\": "));
	assert_non_null(strstr(j, "\"computations\": [\n        \"add\"\n"));
	assert_non_null(strstr(j, "\"steps\": [\n        [0, \"a\"],"));
	assert_non_null(strstr(j, "\"values\": [{\"step\": 0, "
			       "\"index\": []}], \"parameter\": 0, "
			       "\"param_index\": []}"));
	assert_string_equal(j, again);
	free(j);
	free(again);
	hloplan_free(r);
}

/* Every node's position, with what a runtime binds it by. */
static void
test_positions(void **state)
{
	struct hloplan_result *r = plan(NULL);
	const struct hloplan_plan *p = hloplan_get_plan(r, 1);
	int params = 0, outputs = 0;

	(void)state;
	assert_int_equal(p->nposition, 4);
	for (int k = 0; k < p->nposition; k++) {
		const struct hloplan_position *q = &p->positions[k];

		assert_string_equal(q->computation, "add");
		assert_int_equal(q->depth, 0);
		assert_int_equal(q->defines, 1);
		assert_int_equal(q->slot, -1);
		assert_true(q->buffer >= 0 && q->buffer < p->nbuffer);
		if (q->parameter >= 0) {
			assert_string_equal(q->instruction,
					    q->parameter ? "b" : "a");
			params++;
		}
		outputs += q->output;
	}
	assert_int_equal(params, 2);
	assert_int_equal(outputs, 1);
	assert_string_equal(p->positions[3].instruction, "d");
	assert_int_equal(p->positions[3].output, 1);
	assert_int_equal(p->positions[3].size, 512);	/* f32[64] T(128) */
	assert_string_equal(p->positions[3].shape, "f32[64]{0:T(128)}");
	hloplan_free(r);
}

/* Splits a CSV line of plain fields and one quoted name into fields[]. */
static int
split(char *line, char **fields, int max)
{
	int n = 0;

	while (n < max && *line) {
		if (*line == '"') {
			fields[n++] = ++line;
			line = strchr(line, '"');
			assert_non_null(line);
			*line++ = 0;
		} else {
			fields[n++] = line;
			line += strcspn(line, ",\n");
		}
		if (*line == '\n')
			break;
		if (*line == ',')
			*line++ = 0;
	}
	*line = 0;
	return n;
}

/* Every row agrees with the plan it names, by prefix, and the rows pass
 * the disjointness check on their own (end_time is exclusive there). */
static void
check_row(const struct hloplan_result *r, char **f)
{
	int target = !strcmp(f[13], "gpu") ? 0 : 1;
	const struct hloplan_plan *p = hloplan_get_plan(r, target);
	const struct hloplan_buffer *b = &p->buffers[atoi(f[0])];

	assert_string_equal(f[11], p->prefix);

	assert_string_equal(f[1], b->name);
	assert_int_equal(atoll(f[2]), b->offset);
	assert_int_equal(atoll(f[3]), b->size);
	assert_int_equal(atoll(f[4]), b->start);
	assert_int_equal(atoll(f[5]), b->end + 1);
	assert_int_equal(atoll(f[6]), b->bytes);
	assert_int_equal(atoi(f[7]), b->space);
	assert_int_equal(atoi(f[8]), b->slots);
	assert_int_equal(atoll(f[9]), b->stride);
	assert_string_equal(f[12], p->module);
}

static void
test_csv(void **state)
{
	static const char head[] = "buffer_id,buffer_name,offset,size,"
				   "definition_time,end_time,unpadded_size,"
				   "memory_space,slots,stride,class,plan,"
				   "module,target,dtype,shape,parameter,"
				   "param_index,"
				   "output_index,values\n";
	struct hloplan_result *r = plan(NULL);
	char *csv = written(r, HLOPLAN_FORMAT_CSV, NULL), *line = csv, *f[24];
	int rows = 0;

	(void)state;
	assert_int_equal(strncmp(csv, head, sizeof head - 1), 0);
	line = strchr(csv, '\n') + 1;
	while (*line) {
		char *next = strchr(line, '\n') + 1;

		assert_int_equal(split(line, f, 24), 20);
		check_row(r, f);
		rows++;
		line = next;
	}
	assert_int_equal(rows, hloplan_get_plan(r, 0)->nbuffer +
				       hloplan_get_plan(r, 1)->nbuffer);
	free(csv);
	hloplan_free(r);
}

static int
count(const char *text, const char *what)
{
	int n = 0;

	for (const char *s = text; (s = strstr(s, what)); s++)
		n++;
	return n;
}

static void
test_svg(void **state)
{
	struct hloplan_result *r = plan(NULL);
	char *svg = written(r, HLOPLAN_FORMAT_SVG, NULL);
	char *again = written(r, HLOPLAN_FORMAT_SVG, NULL);
	int boxes = 0;

	(void)state;
	for (int i = 0; i < hloplan_nplan(r); i++)
		for (int b = 0; b < hloplan_get_plan(r, i)->nbuffer; b++)
			boxes += hloplan_get_plan(r, i)->buffers[b].in_arena;
	assert_int_equal(strncmp(svg, "<?xml version=\"1.0\"", 19), 0);
	assert_int_equal(count(svg, "<g><title>"), boxes);
	assert_int_equal(count(svg, "<path "), 2);	/* a curve an arena */
	assert_non_null(strstr(svg, "<title>a (param)\nsize 512 bytes, "
			       "unpadded 256"));
	assert_non_null(strstr(svg, "fill=\"url(#hatch)\""));
	assert_non_null(strstr(svg, ">lower bound 1,024 bytes</text>"));
	assert_string_equal(svg + strlen(svg) - 7, "</svg>\n");
	assert_string_equal(svg, again);
	free(svg);
	free(again);
	hloplan_free(r);
}

static void
test_stats(void **state)
{
	struct hloplan_result *r = plan(NULL);
	char *text = written(r, HLOPLAN_FORMAT_STATS, NULL);
	char *json = written(r, HLOPLAN_FORMAT_STATS_JSON, NULL);

	(void)state;
	assert_non_null(strstr(text, "HLOPLAN_GPU: module add, 4 buffers, "
			       "4 steps"));
	assert_non_null(strstr(text, "HLOPLAN_GPU:   arena S(0): "));
	assert_non_null(strstr(text, "\nHLOPLAN_GPU:     the peak is at "
			       "step "));
	assert_non_null(strstr(text, "\nhloplan: time read "));
	assert_non_null(strstr(json, "\"schema\": \"hloplan.stats\""));
	assert_non_null(strstr(json, "\"lower_bound\": 1024"));
	assert_non_null(strstr(json, "\"peak\": {\"step\": "));
	free(text);
	free(json);
	hloplan_free(r);
}

/* The constants blob of a module with a constant, whether or not the pass
 * that fills the plans' constants has run (no bytes then): each plan's
 * bytes at its base, zeros up to the next multiple of 64, the size the
 * sum of those parts; the same bytes through a file. */
static void
test_constants(void **state)
{
	struct hloplan_options o = {0};
	struct hloplan_result *r;
	int64_t size = 0;
	char *blob, got[1 << 16];
	size_t len = 0, n;
	FILE *f;

	(void)state;
	o.constants = path("c.bin");
	r = hloplan_plan_file(HLOPLAN_SAMPLES "/mlp.hlo", &o);
	assert_int_equal(hloplan_status(r), HLOPLAN_OK);
	f = open_memstream(&blob, &len);
	assert_int_equal(hloplan_write(r, HLOPLAN_FORMAT_CONSTANTS, f, NULL),
			 0);
	assert_int_equal(fclose(f), 0);
	for (int i = 0; i < hloplan_nplan(r); i++) {
		const struct hloplan_plan *p = hloplan_get_plan(r, i);
		int64_t part = (p->const_bytes + 63) / 64 * 64;

		assert_int_equal(p->const_base, size);
		assert_true(p->const_bytes == 0 || p->const_data != NULL);
		if (p->const_bytes)
			assert_memory_equal(blob + size, p->const_data,
					    (size_t)p->const_bytes);
		for (int64_t k = p->const_bytes; k < part; k++)
			assert_int_equal(blob[size + k], 0);
		size += part;
	}
	assert_int_equal(len, size);
	assert_int_equal(hloplan_write_file(r, HLOPLAN_FORMAT_CONSTANTS,
					    path("c.bin")), 0);
	f = fopen(path("c.bin"), "rb");
	assert_non_null(f);
	n = fread(got, 1, sizeof got, f);
	fclose(f);
	assert_int_equal(n, len);
	assert_true(len == 0 || !memcmp(got, blob, len));
	unlink(path("c.bin"));
	free(blob);
	hloplan_free(r);
}

/* What --dump=stage prints for the sample; *r is the result, planned. */
static char *
dumped(const char *stage, struct hloplan_result **r)
{
	struct hloplan_options o = {0};
	char *text = NULL;
	size_t len = 0;

	o.dump = stage;
	o.dump_file = open_memstream(&text, &len);
	*r = plan(&o);
	fclose(o.dump_file);
	assert_int_equal(hloplan_status(*r), HLOPLAN_OK);
	return text;
}

static void
test_dump_ir(void **state)
{
	struct hloplan_result *r;
	char *text = dumped("ir", &r);

	(void)state;
	assert_int_equal(hloplan_nplan(r), 0);
	assert_non_null(strstr(text, "HloModule add"));
	free(text);
	hloplan_free(r);
}

/* Each plan's part of a dump starts with a line naming the stage, the
 * plan's prefix, module and target. */
static void
test_dump_labels(void **state)
{
	static const char gpu[] = "== values HLOPLAN_GPU (module add, "
				  "target gpu)\nv0 ";
	static const char tpu[] = "\n== values HLOPLAN_TPU (module add, "
				  "target tpu)\nv0 ";
	struct hloplan_result *r;
	char *text = dumped("values", &r);
	size_t len = strlen(text), at = 0;
	int first = strncmp(text, gpu, sizeof gpu - 1) == 0, tpus = 0, more = 0;

	(void)state;
	/* Where the TPU part starts, then whether a third part follows. */
	for (size_t i = 0; i < len; i++)
		if (strncmp(text + i, "\n==", 3) == 0) {
			more += tpus;
			if (!tpus &&
			    strncmp(text + i, tpu, sizeof tpu - 1) == 0)
				tpus = 1, at = i;
		}
	assert_true(first);
	assert_true(tpus);
	assert_true(at > 0);
	assert_int_equal(more, 0);
	free(text);
	hloplan_free(r);
}

/* ---- depfiles ----------------------------------------------------------- */

static char *
depfile(const struct hloplan_result *r, const char *const *t, const int *q,
	int n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_int_equal(hloplan_write_depfile(r, f, t, q, n), 0);
	fclose(f);
	return text;
}

static void
test_depfile(void **state)
{
	static const char *const t[] = {"out/p.h", "a b$#"};
	static const int q[] = {0, 1};
	struct hloplan_result *r;
	char *d;

	(void)state;
	r = hloplan_plan_string(add_hlo, sizeof add_hlo - 1,
				"my dir\\ x/m$#.hlo", NULL);
	d = depfile(r, t, q, 2);
	assert_string_equal(d, "out/p.h a\\ b$$\\#: my\\ dir\\\\\\ "
			       "x/m$$\\#.hlo\n");
	free(d);
	d = depfile(r, t, NULL, 1);
	assert_string_equal(d, "out/p.h: my\\ dir\\\\\\ x/m$$\\#.hlo\n");
	free(d);
	hloplan_free(r);
	r = hloplan_plan_string(add_hlo, sizeof add_hlo - 1, NULL, NULL);
	d = depfile(r, t, NULL, 1);
	assert_string_equal(d, "out/p.h:\n");
	free(d);
	assert_int_equal(hloplan_write_depfile(r, stdout, t, NULL, 0), -1);
	hloplan_free(r);
}

/* ---- output files ------------------------------------------------------- */

static char dir[] = "/tmp/test_api.XXXXXX";

static char *
path(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof buf, "%s/%s", dir, name);
	return buf;
}

/* Files in the scratch directory whose name holds ".tmp". */
static int
temporaries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strstr(e->d_name, ".tmp") != NULL;
	closedir(d);
	return n;
}

static void
put_file(const char *p, const char *text)
{
	struct hloplan_output *o = hloplan_output_open(p);

	assert_non_null(o);
	fputs(text, hloplan_output_stream(o));
	assert_int_equal(hloplan_output_commit(o), 0);
}

static void
age(const char *p)
{
	struct timespec t[2] = {{1000000000, 0}, {1000000000, 0}};

	assert_int_equal(utimensat(AT_FDCWD, p, t, 0), 0);
}

static time_t
mtime(const char *p)
{
	struct stat st;

	assert_int_equal(stat(p, &st), 0);
	return st.st_mtime;
}

static void
test_output_unchanged(void **state)
{
	char *p = path("plan.h");

	(void)state;
	put_file(p, "one\n");
	age(p);
	put_file(p, "one\n");
	assert_int_equal(mtime(p), 1000000000);	/* same bytes: kept */
	put_file(p, "two\n");
	assert_true(mtime(p) > 1000000000);
	put_file(p, "one\n");
	age(p);
	put_file(p, "one\nmore\n");	/* a longer file is a change */
	assert_true(mtime(p) > 1000000000);
	assert_int_equal(temporaries(), 0);
}

static void
test_output_abort(void **state)
{
	char *p = path("keep.h");
	struct hloplan_output *o;
	char buf[16] = "";
	FILE *f;

	(void)state;
	put_file(p, "old\n");
	o = hloplan_output_open(p);
	fputs("partial", hloplan_output_stream(o));
	assert_int_equal(temporaries(), 1);
	hloplan_output_abort(o);
	assert_int_equal(temporaries(), 0);
	f = fopen(p, "r");
	assert_non_null(fgets(buf, sizeof buf, f));
	fclose(f);
	assert_string_equal(buf, "old\n");
	errno = 0;
	assert_null(hloplan_output_open(path("no/such/dir.h")));
	assert_int_equal(errno, ENOENT);
}

/* A flush hands a buffered output to the system: a write that cannot be
 * made fails there, before any commit (a buffer may hold all of it). */
static void
test_output_flush(void **state)
{
	char *p = path("flushed.h");
	struct hloplan_output *o;
	struct stat st;

	(void)state;
	o = hloplan_output_open(p);
	fputs("a line\n", hloplan_output_stream(o));
	assert_int_equal(hloplan_output_flush(o), 0);
	assert_int_equal(temporaries(), 1);
	assert_int_equal(hloplan_output_commit(o), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 7);
	if (stat("/dev/full", &st))
		return;		/* no /dev/full here */
	o = hloplan_output_open("/dev/full");
	assert_non_null(o);
	fputs("more than nothing\n", hloplan_output_stream(o));
	assert_int_equal(hloplan_output_flush(o), -1);
	assert_int_equal(errno, ENOSPC);
	hloplan_output_abort(o);
}

static void
test_write_file(void **state)
{
	struct hloplan_result *r = plan(NULL);
	char *want = written(r, HLOPLAN_FORMAT_HEADER, "add_plan.h");
	char got[1 << 16];
	size_t n;
	FILE *f;

	(void)state;
	assert_int_equal(hloplan_write_file(r, HLOPLAN_FORMAT_HEADER,
					    path("add_plan.h")), 0);
	f = fopen(path("add_plan.h"), "r");
	n = fread(got, 1, sizeof got - 1, f);
	got[n] = 0;
	fclose(f);
	assert_string_equal(got, want);
	free(want);
	assert_int_equal(hloplan_write_file(r, HLOPLAN_FORMAT_JSON,
					    path("no/dir.json")), -1);
	assert_int_equal(temporaries(), 0);
	hloplan_free(r);
}

static int
make_dir(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int
remove_dir(void **state)
{
	static const char *const names[] = {"plan.h", "keep.h", "add_plan.h",
					    "flushed.h"};

	(void)state;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		unlink(path(names[i]));
	return rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_buffers),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_pack_csv),
		cmocka_unit_test(test_double_buffer),
		cmocka_unit_test(test_stages),
		cmocka_unit_test(test_stages_sum),
		cmocka_unit_test(test_codegen_timed),
		cmocka_unit_test(test_allocators_timed),
		cmocka_unit_test(test_syntax_error),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_positions),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_svg),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_dump_ir),
		cmocka_unit_test(test_dump_labels),
		cmocka_unit_test(test_depfile),
		cmocka_unit_test(test_output_unchanged),
		cmocka_unit_test(test_output_abort),
		cmocka_unit_test(test_output_flush),
		cmocka_unit_test(test_write_file),
	};

	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
