/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_control: the control socket's message parser (engine/ops/control.h),
 * which sees whatever bytes a local client sends.  Promises checked: a
 * rejected message has a sentence; an accepted one is a JSON object whose
 * "verb" is a string, and *verb is that string; an error reply made from
 * the sentence is an object with ok false, the sentence (bytes above 0x7f
 * as '?' where it is not UTF-8) and a status.
 */
#include <jansson.h>

#include "ops/control.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sl_err err = { "" };
	const char *verb = NULL;
	json_t *j = sl_ctl_parse((const char *)data, size, &verb, &err);
	if (j == NULL) {
		fuzz_require(err.msg[0] != '\0', "a rejected message has no sentence");
		json_t *r = sl_ctl_error(2, err.msg);
		fuzz_require(r != NULL && json_is_false(json_object_get(r, "ok")) &&
			     json_integer_value(json_object_get(r, "status")) == 2,
			     "the error reply for '%s'", err.msg);
		/* the sentence, with '?' for bytes above 0x7f where it was not UTF-8 */
		const char *e = json_string_value(json_object_get(r, "error"));
		fuzz_require(e != NULL && strlen(e) == strlen(err.msg),
			     "the error reply's sentence for '%s'", err.msg);
		for (size_t i = 0; e[i] != '\0'; i++)
			fuzz_require(e[i] == err.msg[i] ||
				     (e[i] == '?' && (unsigned char)err.msg[i] > 0x7f),
				     "the error reply's sentence for '%s' at byte %zu", err.msg, i);
		json_decref(r);
		return 0;
	}
	fuzz_require(json_is_object(j), "an accepted message is not an object");
	json_t *v = json_object_get(j, "verb");
	fuzz_require(json_is_string(v) && verb == json_string_value(v),
		     "an accepted message's verb is not its \"verb\" string");
	json_decref(j);
	return 0;
}
