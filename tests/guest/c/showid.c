// SPDX-License-Identifier: GPL-2.0
/*
 * showid: print "UID EUID".  Imported setuid-root into a revision, it
 * shows whether running it from a view gives any privilege (it must not).
 */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("%u %u\n", (unsigned int)getuid(), (unsigned int)geteuid());
	return 0;
}
