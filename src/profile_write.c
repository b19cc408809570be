/* profile_write.c: not written yet */
