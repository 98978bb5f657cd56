/* Inputs in another format than HLO text, named before the lexer runs:
 * StableHLO/MHLO (MLIR) text, an HloProto in protobuf text format, a binary
 * protobuf.  Each is told apart only where HLO text cannot begin, so that no
 * valid HLO text is ever taken for one. */
#include <string.h>

#include "frontend/frontend_internal.h"

/* How to get HLO text, the end of every message here. */
#define GET_HLO_TEXT                                                          \
	"hloplan reads HLO text: get it with "                                \
	"jax.jit(f).lower(x).compile().as_text(), or run with "               \
	"XLA_FLAGS=\"--xla_dump_to=DIR --xla_dump_hlo_as_text\""

/* Fields of HloProto, HloModuleProto and HloSnapshot that open a message
 * ("hlo_module {"): a computation's name followed by '{' may not. */
static const char *const proto_messages[] = {
	"hlo_module", "hlo", "computations", "host_program_shape",
	"buffer_assignment", "schedule", "stack_frame_index",
	"input_output_alias", "instructions", NULL,
};

/* The position of offset `off` in s, for a message. */
static struct loc
loc_at(const char *s, size_t off)
{
	struct loc l = {1, 1};

	for (size_t i = 0; i < off; i++) {
		if (s[i] == '\n') {
			l.line++;
			l.col = 1;
		} else {
			l.col++;
		}
	}
	return l;
}

/* The offset of the first byte after blanks and comments, as the lexer
 * skips them; len when none is left or a comment is not closed. */
static size_t
skip_blank(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		if (strchr(" \t\r\n", s[i]) && s[i]) {
			i++;
		} else if (i + 1 < len && s[i] == '/' && s[i + 1] == '/') {
			while (i < len && s[i] != '\n')
				i++;
		} else if (i + 1 < len && s[i] == '/' && s[i + 1] == '*') {
			for (i += 2; i + 1 < len; i++)
				if (s[i] == '*' && s[i + 1] == '/')
					break;
			i += 2;
		} else {
			break;
		}
	}
	return i < len ? i : len;
}

static int
is_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.';
}

/* The length of the word at s (letters, digits, '_', '.'). */
static size_t
word_len(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && is_word_char(s[n]))
		n++;
	return n;
}

static int
word_is(const char *w, size_t n, const char *s)
{
	return n == strlen(s) && !memcmp(w, s, n);
}

/* MLIR: "module @jit_f attributes {...} {", "module {", "func.func",
 * "#loc = loc(...)", as jax.jit(f).lower(x).as_text() returns. */
static int
is_mlir(const char *s, size_t len)
{
	size_t n = word_len(s, len), k;

	if (len >= 4 && !memcmp(s, "#loc", 4))
		return 1;
	if (word_is(s, n, "func.func"))
		return 1;
	if (!word_is(s, n, "module"))
		return 0;
	k = n + skip_blank(s + n, len - n);
	return k < len && (s[k] == '@' || s[k] == '{' ||
			   word_is(s + k, word_len(s + k, len - k),
				   "attributes"));
}

/* Protobuf text format: "name: ..." (any field), or "hlo_module {". */
static int
is_text_proto(const char *s, size_t len)
{
	size_t n = word_len(s, len), k;

	if (!n || !(s[0] >= 'a' && s[0] <= 'z'))
		return 0;
	k = n;
	while (k < len && (s[k] == ' ' || s[k] == '\t'))
		k++;
	if (k < len && s[k] == ':' && memchr(s, '.', n) == NULL)
		return 1;
	if (k >= len || s[k] != '{')
		return 0;
	for (int i = 0; proto_messages[i]; i++)
		if (word_is(s, n, proto_messages[i]))
			return 1;
	return 0;
}

/* A varint at s[*i]; -1 when it runs past len or 10 bytes. */
static int64_t
varint(const unsigned char *s, size_t len, size_t *i)
{
	uint64_t v = 0;

	for (int shift = 0; *i < len && shift < 64; shift += 7) {
		unsigned char b = s[(*i)++];

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v > INT64_MAX ? -1 : (int64_t)v;
	}
	return -1;
}

/* One protobuf field at s[*i]: a tag of a field number from 1 on and a
 * wire type that exists, and a value that fits in len; 0 when not. */
static int
proto_field(const unsigned char *s, size_t len, size_t *i)
{
	int64_t tag = varint(s, len, i), v;

	if (tag < 8 || tag >> 3 > 1 << 29)
		return 0;
	switch (tag & 7) {
	case 0:
		return varint(s, len, i) >= 0;
	case 1:
	case 5:
		v = (tag & 7) == 1 ? 8 : 4;
		break;
	case 2:
		v = varint(s, len, i);
		break;
	default:
		return 0;
	}
	if (v < 0 || (uint64_t)v > len - *i)
		return 0;
	*i += (size_t)v;
	return 1;
}

/* Does s hold a byte that HLO text never does (a control character) in
 * its first 64 bytes, and begin with well-formed protobuf fields, up to
 * four or the end?  An HloProto begins "0a <length> 0a <length> name". */
static int
is_binary_proto(const unsigned char *s, size_t len)
{
	size_t i = 0, head = len < 64 ? len : 64;
	int control = 0, fields = 0;

	for (size_t k = 0; k < head; k++)
		control |= s[k] < 0x20 && s[k] != '\t' && s[k] != '\n' &&
			   s[k] != '\r';
	if (!control)
		return 0;
	while (i < len && fields < 4)
		if (!proto_field(s, len, &i))
			return 0;
		else
			fields++;
	return fields > 0;
}

/* Names an input in another format at its first word: returns 1 and
 * reports one error then, else 0. */
int
foreign_format(const char *text, size_t len, struct diags *ds)
{
	size_t at = skip_blank(text, len);
	const char *what = NULL;

	if (is_binary_proto((const unsigned char *)text, len)) {
		at = 0;
		what = "a binary protobuf (an HloProto or HloSnapshot?)";
	} else if (is_mlir(text + at, len - at)) {
		what = "StableHLO or MHLO text (MLIR)";
	} else if (is_text_proto(text + at, len - at)) {
		what = "an HloProto in protobuf text format";
	}
	if (!what)
		return 0;
	diag_error(ds, loc_at(text, at), "this is %s, not HLO text; "
		   GET_HLO_TEXT, what);
	return 1;
}
