/* What the writers beside the header share: target names, buffer class
 * names spelled as in the header's comments, and JSON strings. */
#include "codegen/codegen.h"

const char *
codegen_target(int target)
{
	switch (target) {
	case TARGET_GPU:
		return "gpu";
	case TARGET_TPU:
		return "tpu";
	}
	return "unknown";
}

int
codegen_classes(int flags, const char *names[4])
{
	static const struct {
		int flag;
		const char *name;
	} cls[] = {
		{BUF_PARAM, "param"}, {BUF_OUTPUT, "output"},
		{BUF_CONST, "const"}, {BUF_TABLE, "table"},
	};
	int n = 0;

	for (int i = 0; i < (int)(sizeof cls / sizeof *cls); i++)
		if (flags & cls[i].flag)
			names[n++] = cls[i].name;
	if (!n)
		names[n++] = "temp";
	return n;
}

/* The length of the valid UTF-8 sequence at s, or 0. */
static int
utf8_len(const unsigned char *s)
{
	int n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 :
		s[0] >= 0xe0 && s[0] <= 0xef ? 3 :
		s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;

	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0) ||
	    (n == 3 && s[0] == 0xed && s[1] >= 0xa0) ||
	    (n == 4 && s[0] == 0xf0 && s[1] < 0x90) ||
	    (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
		return 0;	/* overlong, surrogate, or past U+10FFFF */
	return n;
}

/* s as a JSON string; bytes that are not UTF-8 become U+FFFD. */
void
codegen_json_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	fputc('"', out);
	while (*s) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s++);
		else if (*s < 0x20)
			fprintf(out, "\\u%04x", *s++);
		else if (*s < 0x80)
			fputc(*s++, out);
		else if ((n = utf8_len(s)) > 0) {
			fwrite(s, 1, (size_t)n, out);
			s += n;
		} else {
			fputs("\\ufffd", out);
			s++;
		}
	}
	fputc('"', out);
}
