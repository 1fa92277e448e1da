#include "textline.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Length of the UTF-8 sequence at s (n bytes available), or 0 if it is not valid UTF-8
 * (overlong forms, surrogates and values above U+10FFFF included). */
static int utf8_len(const unsigned char *s, int n)
{
	int len;
	uint32_t cp;
	if (s[0] < 0x80)
		return 1;
	else if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

int textline_read(FILE *f, char *buf, int size, char *why, size_t whylen)
{
	int n = 0, c = EOF;
	while (n < size - 1 && (c = getc(f)) != EOF) {
		buf[n++] = (char)c;
		if (c == '\n')
			break;
	}
	if (n == 0)
		return 0;
	buf[n] = 0;
	int text = buf[n - 1] == '\n' ? n - 1 : n;   /* the characters before the newline */
	if (text > size - 2) {
		/* the newline does not fit after them: inih would get the line in two pieces */
		snprintf(why, whylen, "line longer than %d characters", size - 2);
		return -1;
	}
	const unsigned char *s = (const unsigned char *)buf;
	for (int i = 0; i < text;) {
		if (s[i] == 0) {
			snprintf(why, whylen, "a NUL byte");
			return -1;
		}
		if ((s[i] < 0x20 && s[i] != '\t' && !(s[i] == '\r' && i == text - 1)) || s[i] == 0x7f) {
			snprintf(why, whylen, "control character \\x%02x", s[i]);
			return -1;
		}
		int len = utf8_len(s + i, text - i);
		if (!len) {
			snprintf(why, whylen, "byte \\x%02x is not UTF-8", s[i]);
			return -1;
		}
		i += len;
	}
	/* inih reads an indented line as the previous key's continuation, the whole line its
	 * value; irt's files have no such values, so indentation is only layout */
	size_t lead = strspn(buf, " \t");
	if (lead)
		memmove(buf, buf + lead, (size_t)n + 1 - lead);
	return 1;
}

int textline_section(const char *line, int lineno, char *name, size_t len, char *why, size_t whylen)
{
	const char *p = line;
	if (lineno == 1 && strncmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;   /* a UTF-8 byte order mark (inih skips it too) */
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '[')
		return 0;
	const char *close = strchr(p, ']');
	if (!close) {
		snprintf(why, whylen, "section header without ']' (expected [NAME])");
		return -1;
	}
	const char *rest = close + 1;
	while (*rest == ' ' || *rest == '\t' || *rest == '\r' || *rest == '\n')
		rest++;
	if (*rest && *rest != ';' && *rest != '#') {   /* inih would drop it silently */
		snprintf(why, whylen, "text after the section header's ']' (expected [NAME], then a comment at most)");
		return -1;
	}
	snprintf(name, len, "%.*s", (int)(close - p - 1), p + 1);
	return 1;
}
