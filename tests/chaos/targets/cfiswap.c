/*
 * cfiswap.c - libcfiswap.so, for `hostile cfiswap` (stack-cfiloop.test).
 *
 * cfiswap_spin(n) runs ref_spin's loop (acc = acc * 5 + i, i = n..1) n
 * times and returns acc.  It never pushes: its CFA is always rsp + 8,
 * written as the expression DW_OP_const4u 0xc0ffee42, DW_OP_drop,
 * DW_OP_breg7 8 (0x0c 42 ee ff c0 13 77 08: a pattern the target finds
 * in its copy of this file).  Overwriting its first 3 bytes with 2f fd ff
 * (DW_OP_skip -3) makes the rule loop.
 */
__asm__(".text\n"
	".globl cfiswap_spin\n"
	".type cfiswap_spin, @function\n"
	".p2align 4\n"
	"cfiswap_spin:\n"
	".cfi_startproc\n"
	".cfi_escape 0x0f, 0x08, 0x0c, 0x42, 0xee, 0xff, 0xc0, 0x13, 0x77, "
	"0x08\n"
	"mov $1, %rax\n"
	"1:\n"
	"lea (%rax,%rax,4), %rax\n"
	"add %rdi, %rax\n"
	"dec %rdi\n"
	"jnz 1b\n"
	"ret\n"
	".cfi_endproc\n"
	".size cfiswap_spin, .-cfiswap_spin\n");
