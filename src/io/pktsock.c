/* pktsock.c - the send-only sockets a worker writes results to: the packet
 * socket that sends frames out of a device (End.DX2's oif, a SID's veth
 * pair) and the raw IPv4 socket for srv6d's own ICMP errors (see
 * pktsock.h). */
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "pktsock.h"

int pkt_sock_open(void)
{
	/* Protocol 0: the socket receives nothing, it only sends. */
	return socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
}

int pkt_sock_send(int fd, uint32_t ifindex, const uint8_t *frame, size_t len)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_ifindex = (int)ifindex,
		.sll_halen = ETH_ALEN,
	};

	if (len < ETH_HLEN)
		return -1;
	memcpy(&sll.sll_protocol, frame + 12, 2);	/* the EtherType */
	memcpy(sll.sll_addr, frame, ETH_ALEN);
	return sendto(fd, frame, len, 0, (const struct sockaddr *)&sll,
		      sizeof(sll)) == (ssize_t)len ? 0 : -1;
}

int raw4_sock_open(void)
{
	/* IPPROTO_RAW implies IP_HDRINCL; the socket receives nothing. */
	return socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
		      IPPROTO_RAW);
}

int raw4_sock_send(int fd, const uint8_t *pkt, size_t len)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	if (len < 20 || (pkt[0] >> 4) != 4)
		return -1;
	memcpy(&sin.sin_addr, pkt + 16, 4);	/* the destination */
	return sendto(fd, pkt, len, 0, (const struct sockaddr *)&sin,
		      sizeof(sin)) == (ssize_t)len ? 0 : -1;
}
