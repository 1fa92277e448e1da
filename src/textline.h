/* One line of a text input file (job files, simulator workloads) for inih's reader callback:
 * never split, never silently cut. inih parses lines of at most `size` bytes and stops a
 * line at a NUL; a longer line would come back in pieces, the tail parsed as a line of its own
 * (a key hidden at the end of a comment). */
#ifndef IRT_TEXTLINE_H
#define IRT_TEXTLINE_H

#include <stddef.h>
#include <stdio.h>

/* Reads the next line of f into buf (size bytes: the line, its '\n' and the NUL).
 * Returns 1 for a line, 0 at the end of the file, -1 when the line is refused, with why
 * ("line longer than 198 characters", "a NUL byte", "control character \x01", "byte \xff is
 * not UTF-8") in why. Tabs and a '\r' before the '\n' are accepted, and the line's
 * indentation is dropped. A refused line is not consumed further: the caller stops. */
int textline_read(FILE *f, char *buf, int size, char *why, size_t whylen);

/* Whether line `lineno` (1 = the first: a UTF-8 byte order mark may start it) is a section
 * header: 1 with the text between '[' and ']' in name; 0 not one; -1 a malformed one (no ']',
 * or text after it other than a ; or # comment), with why. Both INI readers (job files,
 * workloads) see headers through it, before inih, which would drop the rest of the line. */
int textline_section(const char *line, int lineno, char *name, size_t len, char *why, size_t whylen);

#endif
