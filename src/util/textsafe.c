/*
 * textsafe.c - escape hostile names for text and JSON (see textsafe.h).
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "util/textsafe.h"

size_t textsafe_utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len, i;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	/* A NUL is no continuation byte: the loop stops at it. */
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, past U+10FFFF, and U+FFFE/U+FFFF
	 * (which XML does not allow) are invalid. */
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff || c == 0xfffe ||
	    c == 0xffff)
		return 0;
	return len;
}

bool textsafe_unsafe(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;

	if (len == 0)
		return true;
	if (len == 1)
		return s[0] < 0x20 || s[0] == 0x7f;
	/* C1 controls, U+0080..U+009F, are 0xc2 0x80..0x9f in UTF-8: some
	 * terminals take U+009B as CSI, the start of an escape sequence. */
	return len == 2 && s[0] == 0xc2 && s[1] <= 0x9f;
}

/* The escaped form of the character at s: its length in bytes (at least
 * 1) in *len, and whether it is escaped. */
static bool next_char(const char *s, const char *also, size_t *len)
{
	size_t n = textsafe_utf8_len(s);
	bool esc = textsafe_unsafe(s, n) ||
		   (also && n == 1 && strchr(also, *s));

	*len = n ? n : 1;
	return esc;
}

int textsafe_fputs(FILE *out, const char *s, const char *also)
{
	size_t len;

	while (s && *s) {
		if (next_char(s, also, &len))
			for (size_t i = 0; i < len; i++)
				fprintf(out, "\\x%02x", (unsigned char)s[i]);
		else
			fwrite(s, 1, len, out);
		s += len;
	}
	return ferror(out) ? -1 : 0;
}

char *textsafe_str(char *buf, size_t size, const char *s)
{
	size_t k = 0, len;

	while (s && *s) {
		bool esc = next_char(s, NULL, &len);
		size_t need = esc ? 4 * len : len;

		if (k + need >= size)
			break;
		if (esc)
			for (size_t i = 0; i < len; i++)
				snprintf(buf + k + 4 * i, 5, "\\x%02x",
					 (unsigned char)s[i]);
		else
			memcpy(buf + k, s, len);
		k += need;
		s += len;
	}
	buf[k] = '\0';
	return buf;
}

int textsafe_fputs_json(FILE *out, const char *s)
{
	size_t len;

	if (!s) {
		fputs("null", out);
		return ferror(out) ? -1 : 0;
	}
	fputc('"', out);
	for (; *s; s += len) {
		len = textsafe_utf8_len(s);
		if (len == 0) {
			/* JSON text is UTF-8 (RFC 8259): a byte that is no
			 * character cannot be written, only replaced. */
			fputs("\xef\xbf\xbd", out);
			len = 1;
		} else if (*s == '"' || *s == '\\') {
			fprintf(out, "\\%c", *s);
		} else if (textsafe_unsafe(s, len)) {
			/* C1 U+0080..U+009F is 0xc2 then the code point. */
			fprintf(out, "\\u%04x",
				(unsigned char)s[len == 1 ? 0 : 1]);
		} else {
			fwrite(s, 1, len, out);
		}
	}
	fputc('"', out);
	return ferror(out) ? -1 : 0;
}
