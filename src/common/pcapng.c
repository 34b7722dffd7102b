/* pcapng.c - pcapng blocks (pcapng.h), little-endian. */
#include <string.h>

#include "pcapng.h"

#define BT_SHB		0x0a0d0d0au
#define BT_IDB		0x00000001u
#define BT_EPB		0x00000006u
#define BOM		0x1a2b3c4du
#define OPT_END		0
#define OPT_COMMENT	1
#define OPT_SHB_USERAPPL 4
#define OPT_IF_NAME	2

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

static void le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void le32(uint8_t *p, uint32_t v)
{
	le16(p, (uint16_t)v);
	le16(p + 2, (uint16_t)(v >> 16));
}

/* Bytes an option of a value of len bytes takes (0 without a value). */
static size_t opt_size(const char *v)
{
	return v ? 4 + pad4(strlen(v)) : 0;
}

/* Write the option code with value v (if any) at p, zero padded;
 * returns the bytes written. */
static size_t opt_put(uint8_t *p, uint16_t code, const char *v)
{
	size_t n;

	if (!v)
		return 0;
	n = strlen(v);
	le16(p, code);
	le16(p + 2, (uint16_t)n);
	memcpy(p + 4, v, n);
	memset(p + 4 + n, 0, pad4(n) - n);
	return 4 + pad4(n);
}

/* The block's frame: type and total length at the start, the length again
 * at the end (len bytes in all). */
static void block_frame(uint8_t *buf, uint32_t type, size_t len)
{
	le32(buf, type);
	le32(buf + 4, (uint32_t)len);
	le32(buf + len - 4, (uint32_t)len);
}

/* The options' end marker, when there are options. */
static size_t opts_end(uint8_t *p, size_t opts)
{
	if (!opts)
		return 0;
	le32(p, OPT_END);
	return 4;
}

static size_t opts_len(size_t opts)
{
	return opts ? opts + 4 : 0;
}

static int too_long(const char *v)
{
	return v && strlen(v) > 0xffff;
}

size_t pcapng_shb(uint8_t *buf, size_t cap, const char *app)
{
	size_t opts = opt_size(app), len = 28 + opts_len(opts), off = 24;

	if (too_long(app) || len > cap)
		return 0;
	le32(buf + 8, BOM);
	le16(buf + 12, 1);
	le16(buf + 14, 0);
	memset(buf + 16, 0xff, 8);	/* section length: -1, unknown */
	off += opt_put(buf + off, OPT_SHB_USERAPPL, app);
	off += opts_end(buf + off, opts);
	block_frame(buf, BT_SHB, len);
	return len;
}

size_t pcapng_idb(uint8_t *buf, size_t cap, uint16_t linktype,
		  uint32_t snaplen, const char *name)
{
	size_t opts = opt_size(name), len = 20 + opts_len(opts), off = 16;

	if (too_long(name) || len > cap)
		return 0;
	le16(buf + 8, linktype);
	le16(buf + 10, 0);
	le32(buf + 12, snaplen);
	off += opt_put(buf + off, OPT_IF_NAME, name);
	off += opts_end(buf + off, opts);
	block_frame(buf, BT_IDB, len);
	return len;
}

size_t pcapng_epb(uint8_t *buf, size_t cap, uint32_t ifid, uint64_t ts_us,
		  const uint8_t *data, uint32_t caplen, uint32_t origlen,
		  const char *comment)
{
	size_t opts = opt_size(comment);
	size_t len = 32 + pad4(caplen) + opts_len(opts), off = 28;

	if (too_long(comment) || caplen > origlen || len > cap)
		return 0;
	le32(buf + 8, ifid);
	le32(buf + 12, (uint32_t)(ts_us >> 32));
	le32(buf + 16, (uint32_t)ts_us);
	le32(buf + 20, caplen);
	le32(buf + 24, origlen);
	memcpy(buf + off, data, caplen);
	memset(buf + off + caplen, 0, pad4(caplen) - caplen);
	off += pad4(caplen);
	off += opt_put(buf + off, OPT_COMMENT, comment);
	off += opts_end(buf + off, opts);
	block_frame(buf, BT_EPB, len);
	return len;
}
