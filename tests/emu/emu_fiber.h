/* Test support: switching between the stacks of fibers (tests/emu/emu_block.h runs a block's
 * threads on them), announced to AddressSanitizer when it is on. */
#ifndef HALOX_TEST_EMU_FIBER_H
#define HALOX_TEST_EMU_FIBER_H

#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define HX_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HX_EMU_ASAN 1
#endif
#endif
#ifdef HX_EMU_ASAN
#include <sanitizer/asan_interface.h>
#endif

/* Switching stacks: a few instructions on x86-64 (swapcontext also saves the signal mask, a system
 * call: the fused 3D test takes 20 times as long); ucontext elsewhere or with HX_EMU_UCONTEXT. */
#if defined(__x86_64__) && !defined(HX_EMU_UCONTEXT)
#define HX_EMU_ASM_SWITCH 1
extern "C" void hx_emu_swap(void **save_sp, void *to_sp);
/* weak: every test that includes this defines it once */
__asm__(".pushsection .text\n"
        ".weak hx_emu_swap\n.type hx_emu_swap, @function\nhx_emu_swap:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rsp, (%rdi)\n  movq %rsi, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n  ret\n"
        ".size hx_emu_swap, .-hx_emu_swap\n"
        /* a new fiber's first return lands here, stack 16-byte aligned: call its entry (r13) */
        ".weak hx_emu_start\n.type hx_emu_start, @function\nhx_emu_start:\n"
        "  callq *%r13\n  ud2\n"
        ".size hx_emu_start, .-hx_emu_start\n"
        ".popsection\n");
extern "C" void hx_emu_start(void);
#else
#include <ucontext.h>
#endif

namespace hx_emu {

/* a saved stack: where to resume */
struct context {
#ifdef HX_EMU_ASM_SWITCH
    void *sp;
#else
    ucontext_t uc;
#endif
};
inline void swap(context &save, context &to)
{
#ifdef HX_EMU_ASM_SWITCH
    hx_emu_swap(&save.sp, to.sp);
#else
    swapcontext(&save.uc, &to.uc);
#endif
}

inline void asan_leave(void **fake, const void *bottom, size_t size)
{
#ifdef HX_EMU_ASAN
    __sanitizer_start_switch_fiber(fake, bottom, size);
#else
    (void)fake, (void)bottom, (void)size;
#endif
}
inline void asan_arrive(void *fake, const void **bottom, size_t *size)
{
#ifdef HX_EMU_ASAN
    __sanitizer_finish_switch_fiber(fake, bottom, size);
#else
    (void)fake, (void)bottom, (void)size;
#endif
}

} // namespace hx_emu

#endif
