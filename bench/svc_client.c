/* SPDX-License-Identifier: BSD-2-Clause */
/* svc_client: a closed-loop redis client that times every request, for
 * bench/service.py (which builds and runs it).
 * build: cc -O2 -o svc_client svc_client.c
 * run:   svc_client PORT SECONDS KEY
 * One TCP connection to 127.0.0.1:PORT; sends GET KEY (a RESP array),
 * reads the whole reply, sends the next: one request in flight, so each
 * latency is what one caller of the service waited. Prints one JSON line:
 * count, p50_us, p99_us, p999_us, max_us, mean_us, stalled_ms.
 * A reply that does not come within 5 s ends the run (exit 3): the service
 * has hung (the tool deadlocked it), and stalled_ms says since when; the
 * figures are those of the requests answered before.
 * Latencies go into 1 us buckets up to 1 s (exact to the microsecond that
 * the table reports) and anything slower into a list kept whole: the
 * pauses the benchmark is about must not be rounded into a last bucket.
 * C rather than Python so that the client's own jitter stays small. */
#define _GNU_SOURCE /* memmem */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define NBUCKET 1000000 /* 1 us each: up to 1 s */

static uint32_t bucket[NBUCKET];
static uint64_t *slow; /* latencies of 1 s or more, ns */
static size_t nslow, capslow;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "svc_client: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Reads until buf holds one whole reply; returns its length, or 0 if more
 * bytes are needed. Handles what GET can answer: a bulk string ($n / $-1),
 * a simple string (+) or an error (-). */
static size_t reply_len(const char *buf, size_t len)
{
	const char *crlf = memmem(buf, len, "\r\n", 2);
	if (!crlf)
		return 0;
	size_t head = (size_t)(crlf - buf) + 2;
	if (buf[0] != '$')
		return head;
	long n = strtol(buf + 1, NULL, 10);
	if (n < 0)
		return head;
	size_t whole = head + (size_t)n + 2;
	return len >= whole ? whole : 0;
}

static int cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The latency of rank k (0-based) in us: from the buckets, then the list. */
static double at_rank(uint64_t k)
{
	uint64_t seen = 0;
	for (size_t i = 0; i < NBUCKET; i++) {
		seen += bucket[i];
		if (seen > k)
			return (double)i;
	}
	return (double)slow[k - seen] / 1000.0;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: svc_client PORT SECONDS KEY\n");
		return 2;
	}
	int port = atoi(argv[1]);
	double seconds = atof(argv[2]);
	const char *key = argv[3];

	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	int one = 1; /* each request is one small write: no Nagle delay */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	struct timeval stall = {.tv_sec = 5};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &stall, sizeof stall);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
		die("connect");

	char req[512];
	int reqlen = snprintf(req, sizeof req, "*2\r\n$3\r\nGET\r\n$%zu\r\n%s\r\n", strlen(key), key);
	if (reqlen < 0 || (size_t)reqlen >= sizeof req) {
		fprintf(stderr, "svc_client: key too long\n");
		return 2;
	}
	static char buf[1 << 16];
	uint64_t count = 0, max_ns = 0, sum_ns = 0, stalled_ns = 0;
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	for (;;) {
		uint64_t t0 = now_ns();
		if (t0 >= end)
			break;
		if (write(fd, req, (size_t)reqlen) != reqlen)
			die("write");
		size_t len = 0;
		do {
			if (len == sizeof buf) {
				fprintf(stderr, "svc_client: reply larger than %zu bytes\n", sizeof buf);
				return 1;
			}
			ssize_t r = read(fd, buf + len, sizeof buf - len);
			if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				stalled_ns = now_ns() - t0;
				break;
			}
			if (r <= 0)
				die(r == 0 ? "connection closed" : "read");
			len += (size_t)r;
		} while (!reply_len(buf, len));
		if (stalled_ns)
			break;
		if (buf[0] == '-') {
			fprintf(stderr, "svc_client: redis answered %.*s", (int)len, buf);
			return 1;
		}
		uint64_t ns = now_ns() - t0;
		count++;
		sum_ns += ns;
		if (ns > max_ns)
			max_ns = ns;
		if (ns / 1000 < NBUCKET) {
			bucket[ns / 1000]++;
		} else {
			if (nslow == capslow) {
				capslow = capslow ? 2 * capslow : 64;
				slow = realloc(slow, capslow * sizeof *slow);
				if (!slow)
					die("realloc");
			}
			slow[nslow++] = ns;
		}
	}
	close(fd);
	if (!count && !stalled_ns) {
		fprintf(stderr, "svc_client: no request completed\n");
		return 1;
	}
	if (!count) {
		printf("{\"count\":0,\"stalled_ms\":%.0f}\n", (double)stalled_ns / 1e6);
		return 3;
	}
	qsort(slow, nslow, sizeof *slow, cmp64);
	/* Nearest rank: the smallest latency with at least p of them at or
	 * below it. */
	uint64_t k50 = (count * 50 + 99) / 100 - 1, k99 = (count * 99 + 99) / 100 - 1;
	uint64_t k999 = (count * 999 + 999) / 1000 - 1;
	printf("{\"count\":%llu,\"p50_us\":%.0f,\"p99_us\":%.0f,\"p999_us\":%.0f,\"max_us\":%.0f,"
	       "\"mean_us\":%.1f,\"stalled_ms\":%.0f}\n",
	       (unsigned long long)count, at_rank(k50), at_rank(k99), at_rank(k999),
	       (double)max_ns / 1000.0, (double)sum_ns / count / 1000.0, (double)stalled_ns / 1e6);
	return stalled_ns ? 3 : 0;
}
