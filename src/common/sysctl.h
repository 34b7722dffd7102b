/* sysctl.h - reading and writing /proc/sys values (never on the packet
 * path): the sysctls srv6d sets on its own devices, the reinjection veth and
 * the SIDs' veth pairs.
 */
#ifndef SRV6D_SYSCTL_H
#define SRV6D_SYSCTL_H

#include <stddef.h>

/* Read the first line of the sysctl file `path` (/proc/sys/...) into buf
 * (len bytes, NUL-terminated, without the newline).  Returns 0, or -1
 * with buf left as it was. */
int sysctl_read(const char *path, char *buf, size_t len);

/* Write value to /proc/sys/net/<proto>/conf/<dev>/<key> (proto "ipv4" or
 * "ipv6").  A failure (a read-only /proc/sys in a hardened unit) is
 * logged as a warning, not fatal. */
void sysctl_dev_write(const char *proto, const char *dev, const char *key,
		      const char *value);

#endif
