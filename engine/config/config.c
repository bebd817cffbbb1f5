/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Configuration loading.  libyaml's document API turns the text into a tree
 * of nodes, each with the position where it starts; the functions below walk
 * that tree section by section (dpdk, pool, engine, workers, apps, links, in
 * that order whatever the order in the file), fill a struct sl_config, then
 * check ports and compute the push order.  The first problem found stops the
 * walk: its sentence goes into the caller's struct sl_err, prefixed with
 * FILE:LINE:COLUMN, and everything built so far is freed.
 *
 * This file holds the entry points, the walk of the top level and the small
 * helpers every part uses; each part of the document has a file of its own:
 * config_schema.c (the keys and their docs), config_engine.c (dpdk, pool,
 * engine, topology), config_workers.c, config_apps.c, config_links.c, and
 * config_order.c (the push order).  They share config_private.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "config/config.h"
#include "config/config_private.h"

struct sl_mark node_mark(const yaml_node_t *n)
{
	return (struct sl_mark){ .line = (unsigned)n->start_mark.line + 1,
				 .col = (unsigned)n->start_mark.column + 1 };
}

/* Write "NAME:LINE:COL: sentence" into the error and return -EINVAL. */
__attribute__((format(printf, 3, 4)))
int fail_at(struct ctx *c, struct sl_mark m, const char *fmt, ...)
{
	char msg[sizeof(c->err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sl_errf(c->err, EINVAL, "%s:%u:%u: %s", c->name, m.line, m.col, msg);
}

int out_of_memory(struct ctx *c)
{
	return sl_errf(c->err, ENOMEM, "%s: out of memory", c->name);
}

/* Add "NAME:LINE:COL: sentence" to the config's warnings.  Returns 0, or
 * -ENOMEM. */
__attribute__((format(printf, 3, 4)))
int config_warn(struct ctx *c, struct sl_mark m, const char *fmt, ...)
{
	struct sl_config *cfg = c->cfg;
	char msg[sizeof(c->err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char **more = realloc(cfg->warnings, (cfg->n_warnings + 1) * sizeof(*more));
	if (more == NULL)
		return out_of_memory(c);
	cfg->warnings = more;
	size_t len = strlen(c->name) + strlen(msg) + 32;
	cfg->warnings[cfg->n_warnings] = malloc(len);
	if (cfg->warnings[cfg->n_warnings] == NULL)
		return out_of_memory(c);
	snprintf(cfg->warnings[cfg->n_warnings], len, "%s:%u:%u: %s", c->name, m.line, m.col, msg);
	cfg->n_warnings++;
	return 0;
}

yaml_node_t *node_at(const struct ctx *c, int id)
{
	return yaml_document_get_node(c->doc, id);
}

const char *text_of(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* The kind of a node, for "..., got a sequence". */
const char *kind_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE: return "a mapping";
	case YAML_SEQUENCE_NODE: return "a sequence";
	case YAML_SCALAR_NODE: return "a single value";
	default: return "nothing";
	}
}

/* An empty plain scalar, `~` or `null`: what `key:` with no value gives. */
bool is_null(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *s = text_of(n);
	return s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
	       strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

unsigned n_pairs(const yaml_node_t *map)
{
	return (unsigned)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
}

unsigned n_items(const yaml_node_t *seq)
{
	return (unsigned)(seq->data.sequence.items.top - seq->data.sequence.items.start);
}

/* App and worker names: a letter, then letters, digits, '_' and '-'. */
bool valid_name(const char *s)
{
	if (!isalpha((unsigned char)s[0]))
		return false;
	for (const char *p = s + 1; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return false;
	return true;
}

/* Join words into buf as "a, b, c" (cut short with "..." if it does not fit). */
const char *join_names(const char *const *words, unsigned n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i > 0 ? ", " : "", words[i]);
		if (w < 0 || (size_t)w >= len - used) {
			if (len >= 4)
				strcpy(buf + len - 4, "...");
			break;
		}
		used += (size_t)w;
	}
	return buf;
}

int cmp_name_ref(const void *a, const void *b)
{
	const struct name_ref *x = a, *y = b;
	int r = strcmp(x->name, y->name);
	if (r != 0)
		return r;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Index of name in refs[0..n) (sorted by cmp_name_ref), or -1. */
int find_ref(const struct name_ref *refs, unsigned n, const char *name)
{
	unsigned lo = 0, hi = n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		int r = strcmp(refs[mid].name, name);
		if (r == 0)
			return (int)refs[mid].idx;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Keys this many or fewer are compared pairwise; more are sorted. */
#define KEYS_PAIRWISE 16

/* Every key of a mapping must be a scalar, and no key may appear twice.
 * `what` names a key in the message ("app", "worker", "key"); `owner` is put
 * in front ("app 'x': ") or is "".  The problem reported is the one met
 * first in file order; O(n log n) in the number of keys. */
int check_keys(struct ctx *c, const yaml_node_t *map, const char *what,
	       const char *owner)
{
	const yaml_node_pair_t *start = map->data.mapping.pairs.start;
	unsigned n = n_pairs(map), scalars = 0;
	unsigned dup = n, first = 0;       /* a key repeating key `first`, earliest in the file */

	while (scalars < n && node_at(c, start[scalars].key)->type == YAML_SCALAR_NODE)
		scalars++;
	if (scalars <= KEYS_PAIRWISE) {
		for (unsigned p = 0; p < scalars && dup == n; p++)
			for (unsigned q = 0; q < p; q++)
				if (strcmp(text_of(node_at(c, start[q].key)),
					   text_of(node_at(c, start[p].key))) == 0) {
					dup = p;
					first = q;
					break;
				}
	} else {
		struct name_ref *refs = calloc(scalars, sizeof(*refs));
		if (refs == NULL)
			return out_of_memory(c);
		for (unsigned i = 0; i < scalars; i++)
			refs[i] = (struct name_ref){ text_of(node_at(c, start[i].key)), i };
		qsort(refs, scalars, sizeof(*refs), cmp_name_ref);
		/* In a run of equal keys, the second is the earliest repeat. */
		for (unsigned i = 1; i < scalars; i++)
			if (strcmp(refs[i].name, refs[i - 1].name) == 0 &&
			    (i < 2 || strcmp(refs[i - 1].name, refs[i - 2].name) != 0) &&
			    refs[i].idx < dup) {
				dup = refs[i].idx;
				first = refs[i - 1].idx;
			}
		free(refs);
	}
	if (dup < n) {
		const yaml_node_t *k = node_at(c, start[dup].key);
		return fail_at(c, node_mark(k), "%sduplicate %s '%s' (first at line %u)", owner,
			       what, text_of(k), node_mark(node_at(c, start[first].key)).line);
	}
	if (scalars < n) {
		const yaml_node_t *k = node_at(c, start[scalars].key);
		return fail_at(c, node_mark(k), "%s%s names must be single words, got %s",
			       owner, what, kind_name(k));
	}
	return 0;
}

/* "unknown key 'x' (did you mean 'y'?)" or "... (known keys: a, b)". */
int unknown_key(struct ctx *c, const yaml_node_t *k, const char *owner,
		const char *what, const char *const *known, unsigned n)
{
	const char *guess = sl_did_you_mean(text_of(k), known, n);
	char list[NAME_LIST_MAX];

	if (guess != NULL)
		return fail_at(c, node_mark(k), "%sunknown %s '%s' (did you mean '%s'?)",
			       owner, what, text_of(k), guess);
	return fail_at(c, node_mark(k), "%sunknown %s '%s' (known: %s)", owner, what,
		       text_of(k), join_names(known, n, list, sizeof(list)));
}

/* A section that must be a mapping; a key with no value counts as absent. */
bool section_absent(const yaml_node_t *n)
{
	return n == NULL || is_null(n);
}
/* ---- entry points ------------------------------------------------------- */

/* Line and column of a byte offset, for reader errors (bad UTF-8...). */
static struct sl_mark offset_mark(const char *text, size_t len, size_t off)
{
	struct sl_mark m = { 1, 1 };

	for (size_t i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			m.line++;
			m.col = 1;
		} else {
			m.col++;
		}
	}
	return m;
}

static int syntax_error(struct ctx *c, const yaml_parser_t *p, const char *text, size_t len)
{
	const char *problem = p->problem != NULL ? p->problem : "malformed input";

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return out_of_memory(c);
	case YAML_READER_ERROR:
		return fail_at(c, offset_mark(text, len, p->problem_offset),
			       "YAML syntax error: %s", problem);
	default:
		break;
	}
	struct sl_mark m = { (unsigned)p->problem_mark.line + 1,
			     (unsigned)p->problem_mark.column + 1 };
	if (p->context != NULL)
		return fail_at(c, m, "YAML syntax error: %s (%s at line %u)", problem, p->context,
			       (unsigned)p->context_mark.line + 1);
	return fail_at(c, m, "YAML syntax error: %s", problem);
}

/* Collections nested deeper than this are refused before the document is
 * built.  A configuration needs 5 levels (root, apps, an app, a list, a
 * row); libyaml's scanner spends time in proportion to the depth on every
 * token, so deep nesting would make loading quadratic. */
#define NESTING_MAX 64

/* A first pass over the events, stopping at the first collection nested
 * deeper than NESTING_MAX.  Syntax errors are left to the loader's pass,
 * which reports them. */
static int check_nesting(struct ctx *c, const char *text, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	unsigned depth = 0;
	int rc = 0;

	if (!yaml_parser_initialize(&parser))
		return out_of_memory(c);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (rc == 0 && yaml_parser_parse(&parser, &ev)) {
		yaml_event_type_t t = ev.type;
		struct sl_mark m = { (unsigned)ev.start_mark.line + 1,
				     (unsigned)ev.start_mark.column + 1 };
		yaml_event_delete(&ev);
		if (t == YAML_STREAM_END_EVENT)
			break;
		if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
			if (++depth > NESTING_MAX)
				rc = fail_at(c, m, "YAML nesting deeper than %d levels; a "
					     "configuration needs at most 5", NESTING_MAX);
		} else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) {
			depth--;
		}
	}
	yaml_parser_delete(&parser);
	return rc;
}

/* Walk the top-level mapping, sections in dependency order. */
static int parse_root(struct ctx *c, const yaml_node_t *root)
{
	const char *top[SEC_N];
	const yaml_node_t *sec[SEC_N] = { NULL };
	int rc;

	for (unsigned i = 0; i < SEC_N; i++)
		top[i] = sections[i].name;

	if (root->type != YAML_MAPPING_NODE)
		return fail_at(c, node_mark(root),
			       "the configuration must be a mapping with 'apps' and 'links', got %s",
			       kind_name(root));
	rc = check_keys(c, root, "key", "");
	if (rc < 0)
		return rc;
	for (const yaml_node_pair_t *p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = node_at(c, p->key);
		unsigned i = 0;
		while (i < SEC_N && strcmp(top[i], text_of(k)) != 0)
			i++;
		if (i == SEC_N)
			return unknown_key(c, k, "", "top-level key", top, SEC_N);
		sec[i] = node_at(c, p->value);
	}
	rc = parse_dpdk(c, sec[SEC_DPDK]);
	if (rc == 0)
		rc = parse_pool(c, sec[SEC_POOL]);
	if (rc == 0)
		rc = parse_engine(c, sec[SEC_ENGINE]);
	if (rc == 0)
		rc = parse_workers(c, sec[SEC_WORKERS]);
	/* With no pool section, a pool warning points at the workers. */
	if (rc == 0 && c->pool_mark.line == 0 && !section_absent(sec[SEC_WORKERS]))
		c->pool_mark = node_mark(sec[SEC_WORKERS]);
	if (rc == 0)
		rc = pool_warnings(c);
	if (rc == 0)
		rc = parse_apps(c, sec[SEC_APPS], root);
	if (rc == 0)
		rc = alloc_ports(c);
	if (rc == 0)
		rc = parse_links(c, sec[SEC_LINKS]);
	if (rc == 0)
		rc = parse_topology(c, sec[SEC_TOPOLOGY]);
	if (rc == 0)
		rc = check_ports(c);
	if (rc == 0)
		rc = check_apps(c);
	if (rc == 0)
		rc = check_refs(c);
	if (rc == 0)
		rc = check_exclusive(c);
	if (rc == 0)
		rc = sl_config_replicate(c->cfg, c->err);
	if (rc == 0)
		rc = sl_config_order(c->cfg, c->err);
	return rc;
}

struct sl_config *sl_config_parse(const char *name, const char *text, size_t len,
				  struct sl_err *err)
{
	struct sl_err scratch;
	struct ctx c = { .name = name != NULL ? name : "<config>",
			 .err = err != NULL ? err : &scratch,
			 /* A row takes at least a few bytes of text unless an
			  * alias repeats it. */
			 .rows_max = (uint64_t)len + 1024 };
	yaml_parser_t parser;
	yaml_document_t doc, extra;
	int rc;

	c.cfg = calloc(1, sizeof(*c.cfg));
	if (c.cfg == NULL) {
		errno = -out_of_memory(&c);
		return NULL;
	}
	c.cfg->path = strdup(c.name);
	if (c.cfg->path == NULL) {
		rc = out_of_memory(&c);
		goto out_free_cfg;
	}
	rc = check_nesting(&c, text, len);
	if (rc < 0)
		goto out_free_cfg;
	if (!yaml_parser_initialize(&parser)) {
		rc = out_of_memory(&c);
		goto out_free_cfg;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		rc = syntax_error(&c, &parser, text, len);
		goto out_delete_parser;
	}
	c.doc = &doc;

	/* A second document is a mistake (and a syntax error in it is one too). */
	if (!yaml_parser_load(&parser, &extra)) {
		rc = syntax_error(&c, &parser, text, len);
		goto out_delete_doc;
	}
	yaml_node_t *more = yaml_document_get_root_node(&extra);
	if (more != NULL) {
		rc = fail_at(&c, node_mark(more),
			     "a second YAML document; a configuration is one document");
		yaml_document_delete(&extra);
		goto out_delete_doc;
	}
	yaml_document_delete(&extra);

	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (root == NULL || is_null(root))
		rc = fail_at(&c, (struct sl_mark){ 1, 1 },
			     "empty configuration; expected a mapping with 'apps' and 'links'");
	else
		rc = parse_root(&c, root);

out_delete_doc:
	yaml_document_delete(&doc);
out_delete_parser:
	yaml_parser_delete(&parser);
out_free_cfg:
	free(c.workers_by_name);
	free(c.apps_by_name);
	free(c.ports_used);
	free(c.ports_base);
	free(c.core_owner);
	if (rc < 0) {
		sl_config_free(c.cfg);
		errno = -rc;
		return NULL;
	}
	return c.cfg;
}

struct sl_config *sl_config_load(const char *path, struct sl_err *err)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int e;

	/* Opened without blocking (a FIFO without a writer would wait), then
	 * checked: only a regular file is read, and at most SL_CONFIG_MAX_BYTES
	 * of it.  The size fstat reports only sizes the first buffer: a file
	 * is read to its end (a pseudo-file such as /proc/self/status reports
	 * 0 bytes), and one that passes the cap while it is read is refused. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return sl_errf_null(err, errno, "%s: cannot read: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0) {
		e = errno;
		sl_errf(err, e, "%s: cannot read: %s", path, strerror(e));
		goto out_close;
	}
	if (S_ISDIR(st.st_mode)) {
		e = -sl_errf(err, EISDIR, "%s: cannot read: %s", path, strerror(EISDIR));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		e = -sl_errf(err, EINVAL, "%s: cannot read: it is %s, not a regular file", path,
			     S_ISCHR(st.st_mode) ? "a character device" :
			     S_ISBLK(st.st_mode) ? "a block device" :
			     S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket" :
			     "a special file");
		goto out_close;
	}
	if (st.st_size > SL_CONFIG_MAX_BYTES) {
		e = -sl_errf(err, EFBIG, "%s: too large: %lld bytes, more than the %d MiB a "
			     "configuration may have", path, (long long)st.st_size,
			     SL_CONFIG_MAX_BYTES >> 20);
		goto out_close;
	}
	/* Room for the whole file and a page more (to see its end), grown
	 * while the file goes on, up to the cap and a page. */
	const size_t limit = (size_t)SL_CONFIG_MAX_BYTES + 4096;
	size_t cap = (size_t)st.st_size + 4096;
	buf = malloc(cap);
	if (buf == NULL) {
		e = -sl_errf(err, ENOMEM, "%s: cannot read: out of memory", path);
		goto out_close;
	}
	for (;;) {
		if (len == cap) {
			size_t more = cap * 2 > limit ? limit : cap * 2;
			char *b = more > cap ? realloc(buf, more) : NULL;
			if (b == NULL) {
				e = -sl_errf(err, ENOMEM, "%s: cannot read: out of memory", path);
				goto out_free;
			}
			buf = b;
			cap = more;
		}
		ssize_t got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			e = errno;
			sl_errf(err, e, "%s: cannot read: %s", path, strerror(e));
			goto out_free;
		}
		if (got == 0)
			break;
		len += (size_t)got;
		if (len > (size_t)SL_CONFIG_MAX_BYTES) {
			e = -sl_errf(err, EFBIG, "%s: too large: more than the %d MiB a "
				     "configuration may have (read up to there)", path,
				     SL_CONFIG_MAX_BYTES >> 20);
			goto out_free;
		}
	}
	close(fd);

	struct sl_config *cfg = sl_config_parse(path, buf, len, err);
	e = errno;
	free(buf);
	errno = e;
	return cfg;

out_free:
	free(buf);
out_close:
	close(fd);
	errno = e;
	return NULL;
}

void sl_config_free(struct sl_config *cfg)
{
	if (cfg == NULL)
		return;
	for (unsigned i = 0; i < cfg->n_eal_args; i++)
		free(cfg->eal_args[i]);
	free(cfg->eal_args);
	free(cfg->c2c_path);
	for (unsigned i = 0; i < cfg->n_workers; i++) {
		free(cfg->workers[i].name);
		free(cfg->workers[i].group);
	}
	free(cfg->workers);
	for (unsigned i = 0; i < cfg->n_apps; i++) {
		struct sl_app_cfg *a = &cfg->apps[i];
		if (a->params != NULL)
			for (unsigned p = 0; p < a->type->n_params; p++)
				sl_param_value_free(&a->params[p]);
		free(a->params);
		free(a->name);
		free(a->base);
	}
	free(cfg->apps);
	for (unsigned i = 0; i < cfg->n_links; i++) {
		free(cfg->links[i].from.port);
		free(cfg->links[i].to.port);
	}
	free(cfg->links);
	free(cfg->order);
	for (unsigned i = 0; i < cfg->n_warnings; i++)
		free(cfg->warnings[i]);
	free(cfg->warnings);
	free(cfg->path);
	free(cfg);
}
