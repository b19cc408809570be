/*
 * textsafe.h - names from hostile sources, made safe to print.
 *
 * Symbol names, module paths, thread names, file names: a target or a
 * profile chooses them, and they reach a terminal, a line-oriented format
 * (--folded, the tables) or JSON.  A newline in a name would forge a line,
 * an escape sequence would drive the terminal, an invalid UTF-8 byte would
 * make JSON undecodable.  Every output of ptprof writes names through this
 * module, so what counts as unsafe is decided here, once:
 *
 *   - a control character: C0 (U+0000..U+001F), DEL (U+007F) and C1
 *     (U+0080..U+009F, which some terminals take as escapes);
 *   - a byte that starts no valid UTF-8 character (textsafe_utf8_len()
 *     says 0: a stray continuation byte, an overlong form, a surrogate,
 *     past U+10FFFF, or the noncharacters U+FFFE and U+FFFF).
 *
 * How it is shown depends on the format:
 *
 *   text (textsafe_fputs(), textsafe_str()): each byte of an unsafe
 *     character as "\xHH" (two lower-case hex digits), so "a\nb" prints
 *     as a\x0ab and ESC as \x1b.  Everything else, backslashes included,
 *     is written as it is: the form is for reading, not reversible.
 *   JSON (textsafe_fputs_json()): a string literal; '"' and '\' escaped,
 *     control characters as \u00HH (exact), an invalid byte as U+FFFD.
 *   SVG (flame.c): XML-escaped, an unsafe character as U+FFFD.
 *
 * Contract: nothing here allocates, prints elsewhere than the stream
 * given, or exits.  The writers return 0, or -1 when the stream is in
 * error.
 */
#ifndef PTPROF_TEXTSAFE_H
#define PTPROF_TEXTSAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Length of the valid UTF-8 character at s (1 to 4), 0 if invalid (as
 * above).  s is NUL-terminated: a sequence cut by the NUL is invalid. */
size_t textsafe_utf8_len(const char *s);

/* Is the character at s, len bytes long (from textsafe_utf8_len()), one
 * that must not be written as it is?  len 0 (invalid) always is. */
bool textsafe_unsafe(const char *s, size_t len);

/* s, escaped as text.  Each ASCII character of `also` (NULL: none) is
 * escaped too: --folded passes ";", its frame separator. */
int textsafe_fputs(FILE *out, const char *s, const char *also);

/* s, escaped as text, into buf (size > 0): cut at a whole character or
 * escape when it does not fit.  Returns buf. */
char *textsafe_str(char *buf, size_t size, const char *s);

/* s as a JSON string literal, quotes included; NULL writes null. */
int textsafe_fputs_json(FILE *out, const char *s);

#endif /* PTPROF_TEXTSAFE_H */
