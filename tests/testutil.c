/* testutil.c - helpers shared by the Check unit tests. */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "testutil.h"

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

size_t hex2bin(const char *hex, uint8_t *buf, size_t cap)
{
	size_t n = 0;
	int hi = -1;

	for (; *hex; hex++) {
		int v;

		if (isspace((unsigned char)*hex))
			continue;
		/* ck_abort_msg(), not ck_assert_msg(): a passing Check
		 * assertion writes its location to the runner (a system
		 * call), two per byte made a loop of loads take 40 s */
		v = hexval((unsigned char)*hex);
		if (v < 0)
			ck_abort_msg("bad hex digit '%c'", *hex);
		if (hi < 0) {
			hi = v;
			continue;
		}
		if (n >= cap)
			ck_abort_msg("hex string longer than %zu bytes", cap);
		buf[n++] = (uint8_t)(hi << 4 | v);
		hi = -1;
	}
	ck_assert_msg(hi < 0, "odd number of hex digits");
	return n;
}

static void dump(char *out, size_t cap, const uint8_t *b, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 4 < cap; i++)
		o += (size_t)snprintf(out + o, cap - o, "%s%02x",
				      (i && i % 16 == 0) ? "\n  " : (i ? " " : ""), b[i]);
}

void testutil_assert_bytes(const char *file, int line, const uint8_t *got,
			   size_t glen, const uint8_t *want, size_t wlen)
{
	static char g[16384], w[16384];
	size_t first = 0;

	if (glen == wlen && memcmp(got, want, glen) == 0)
		return;
	while (first < glen && first < wlen && got[first] == want[first])
		first++;
	dump(g, sizeof(g), got, glen);
	dump(w, sizeof(w), want, wlen);
	ck_abort_msg("%s:%d: bytes differ at offset %zu (got %zu bytes, want %zu)\n"
		     "got:\n  %s\nwant:\n  %s", file, line, first, glen, wlen, g, w);
}

struct pkt *test_pkt(struct test_slot *s, const uint8_t *bytes, size_t len,
		     uint16_t hw_proto)
{
	ck_assert_uint_le(len, sizeof(s->buf) - PKT_HEADROOM);
	memset(&s->p, 0, sizeof(s->p));
	s->p.head = s->buf;
	s->p.data = s->buf + PKT_HEADROOM;
	s->p.end = s->buf + sizeof(s->buf);
	memcpy(s->p.data, bytes, len);
	s->p.len = (uint32_t)len;
	s->p.orig_len = (uint32_t)len;
	s->p.queued_len = (uint32_t)len;
	s->p.hw_proto = hw_proto;
	s->p.verdict = PKT_ACCEPT;
	s->p.chain_kept = true;	/* as queued (pkt_result_reset()) */
	return &s->p;
}

void test_pcap_write(const uint8_t *bytes, size_t len)
{
	const char *path = getenv("SRV6D_TEST_PCAP");
	struct { uint32_t magic; uint16_t vmaj, vmin; int32_t tz;
		 uint32_t sig, snap, link; } gh = { 0xa1b2c3d4, 2, 4, 0, 0, 65535, 101 };
	struct { uint32_t sec, usec, incl, orig; } rh;
	struct timeval tv;
	FILE *f;
	long pos;

	if (!path || !*path)
		return;
	f = fopen(path, "ab");
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	pos = ftell(f);
	if (pos == 0)
		fwrite(&gh, sizeof(gh), 1, f);	/* LINKTYPE_RAW */
	gettimeofday(&tv, NULL);
	rh.sec = (uint32_t)tv.tv_sec;
	rh.usec = (uint32_t)tv.tv_usec;
	rh.incl = rh.orig = (uint32_t)len;
	fwrite(&rh, sizeof(rh), 1, f);
	fwrite(bytes, 1, len, f);
	fclose(f);
}
