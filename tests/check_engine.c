/* check_engine.c - engine_start() when an allocation fails: the config it
 * was given is freed once and never read again (issue 8: it read
 * cfg->nsids and cfg->npolicies after generation_new() had freed cfg).
 *
 * calloc() is wrapped (-Wl,--wrap=calloc: libsrv6d is linked statically
 * into this program, so worker.c's calls go through the wrapper), and the
 * test fails the Nth call after it is armed.  A read of freed memory does
 * not crash by itself: tests/valgrind.sh runs this program under valgrind,
 * which fails on it (an "Invalid read" in engine_start). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "worker.h"

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

static unsigned fail_at;	/* 0: never; else fail the fail_at'th call */

void *__wrap_calloc(size_t n, size_t size)
{
	if (fail_at && --fail_at == 0)
		return NULL;
	return __real_calloc(n, size);
}

static struct config *parse(const char *text)
{
	return config_parse_buffer("test.conf", text, strlen(text), NULL, NULL);
}

/* The engine's own calloc is the first, generation_new()'s the second. */
START_TEST(start_generation_oom)
{
	struct config *cfg = parse("queue 0\n"
				   "sid fc00:100::1/128 action End\n"
				   "route fc00:9::/32 encap seg6 mode encap "
				   "segs fc00:9::c1\n");
	char err[128] = "";

	ck_assert_ptr_nonnull(cfg);
	fail_at = 2;
	ck_assert_ptr_null(engine_start(cfg, NULL, NULL, NULL, err, sizeof(err)));
	fail_at = 0;
	ck_assert_str_eq(err, "out of memory");
}
END_TEST

/* And the engine's own allocation failing. */
START_TEST(start_engine_oom)
{
	struct config *cfg = parse("queue 0\nsid fc00:100::1/128 action End\n");
	char err[128] = "";

	ck_assert_ptr_nonnull(cfg);
	fail_at = 1;
	ck_assert_ptr_null(engine_start(cfg, NULL, NULL, NULL, err, sizeof(err)));
	fail_at = 0;
	ck_assert_str_eq(err, "out of memory");
}
END_TEST

static Suite *engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("oom");

	tcase_add_test(tc, start_generation_oom);
	tcase_add_test(tc, start_engine_oom);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(engine_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
