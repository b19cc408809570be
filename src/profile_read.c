/* profile_read.c: not written yet */
