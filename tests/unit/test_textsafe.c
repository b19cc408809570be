/*
 * test_textsafe - the escaping every output of ptprof uses (textsafe.h):
 * control characters (C0, DEL, C1) and invalid UTF-8 as \xHH in text,
 * \u00HH and U+FFFD in JSON; valid UTF-8 and backslashes kept; the
 * buffer form cut at a whole escape.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util/textsafe.h"
#include "unit.h"

/* What textsafe_fputs() (json: textsafe_fputs_json()) writes for s. */
static char *written(const char *s, const char *also, int json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	if (json)
		CHECK(textsafe_fputs_json(f, s) == 0);
	else
		CHECK(textsafe_fputs(f, s, also) == 0);
	fclose(f);
	return buf;
}

static void check_text(const char *s, const char *also, const char *want)
{
	char *got = written(s, also, 0);

	CHECKF(!strcmp(got, want), "text of %s: got '%s', want '%s'", want, got,
	       want);
	free(got);
}

static void check_json(const char *s, const char *want)
{
	char *got = written(s, NULL, 1);

	CHECKF(!strcmp(got, want), "json: got '%s', want '%s'", got, want);
	free(got);
}

static void test_text(void)
{
	check_text("plain name(int) ~x", NULL, "plain name(int) ~x");
	check_text("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", NULL,
		   "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	check_text("a\nb 999999\n", NULL, "a\\x0ab 999999\\x0a");
	check_text("\x1b[31mred\x7f\t", NULL, "\\x1b[31mred\\x7f\\x09");
	check_text("bad\xff\xc3", NULL, "bad\\xff\\xc3");
	/* C1 CSI (U+009B), an overlong '/', a surrogate, U+FFFF. */
	check_text("\xc2\x9b"
		   "2J",
		   NULL, "\\xc2\\x9b2J");
	check_text("\xc0\xaf \xed\xa0\x80 \xef\xbf\xbf", NULL,
		   "\\xc0\\xaf \\xed\\xa0\\x80 \\xef\\xbf\\xbf");
	check_text("back\\slash", NULL, "back\\slash");
	check_text("a;b", ";", "a\\x3bb");
	check_text("a;b", NULL, "a;b");
	check_text("", NULL, "");
}

static void test_json(void)
{
	check_json("a\"b\\c", "\"a\\\"b\\\\c\"");
	check_json("a\nb\x1b[31mc\xff",
		   "\"a\\u000ab\\u001b[31mc\xef\xbf\xbd\"");
	check_json("\xc2\x9b\x7f caf\xc3\xa9",
		   "\"\\u009b\\u007f caf\xc3\xa9\"");
	check_json(NULL, "null");
}

static void test_str(void)
{
	char buf[12];

	CHECK(!strcmp(textsafe_str(buf, sizeof(buf), "ab\ncd"), "ab\\x0acd"));
	/* 11 bytes fit: "abcdefgh" and no half of "\x0a". */
	CHECK(!strcmp(textsafe_str(buf, sizeof(buf), "abcdefgh\nz"),
		      "abcdefgh"));
	CHECK(!strcmp(textsafe_str(buf, 1, "abc"), ""));
	CHECK(!strcmp(textsafe_str(buf, sizeof(buf),
				   "\xe2\x82\xac\xe2\x82\xac"
				   "\xe2\x82\xac\xe2\x82\xac"),
		      "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"));
}

int main(void)
{
	CHECK(textsafe_utf8_len("\xf4\x8f\xbf\xbd") == 4);
	CHECK(textsafe_utf8_len("\xf4\x90\x80\x80") == 0); /* > U+10FFFF */
	CHECK(textsafe_utf8_len("\xe2\x82") == 0);	   /* cut by the NUL */
	test_text();
	test_json();
	test_str();
	return unit_result("test_textsafe");
}
