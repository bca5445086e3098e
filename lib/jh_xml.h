/* SPDX-License-Identifier: BSD-2-Clause */
/* Text from a profile into an XML document (the SVG flame graph). Names
 * come from the profiled binaries and their maps, so anything: markup,
 * "]]>", control bytes, invalid UTF-8. Each is written so that the
 * document stays well-formed and nothing leaves the element or attribute
 * it is written into. Internal. */
#ifndef JH_XML_H
#define JH_XML_H

#include <stddef.h>
#include <stdio.h>

/* The characters of s as jh_xml_text writes them: each valid UTF-8
 * character that XML 1.0 allows is one, and so is each byte that is not
 * part of one (written as U+FFFD). */
size_t jh_xml_chars(const char *s);

/* The first max characters of s (SIZE_MAX: all), escaped for character
 * data and for an attribute value in double quotes. */
void jh_xml_text(FILE *out, const char *s, size_t max);

#endif
