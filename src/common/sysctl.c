/* sysctl.c - reading and writing /proc/sys values (see sysctl.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "sysctl.h"

int sysctl_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

void sysctl_dev_write(const char *proto, const char *dev, const char *key,
		      const char *value)
{
	char path[128];
	size_t len = strlen(value);
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/net/%s/conf/%s/%s", proto,
		 dev, key);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, value, len) != (ssize_t)len)
		log_msg(LOG_WARNING, "%s: cannot set %s: %s", dev, path,
			strerror(errno));
	if (fd >= 0)
		close(fd);
}
