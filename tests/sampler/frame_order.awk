# frame_order.awk - reads `objdump -d -l -r --no-show-raw-insn` of an x86-64
# object or program (twice: awk -f frame_order.awk LISTING LISTING) and checks
# the order of sgc_frame_pop's two stores at every place it was compiled in:
# the unpublishing store (to sgc_top, from sgc_frame_pop: the debug
# information names it as the inlined function, or the line is one of its
# body in runtime/sgc.h: lines lo..hi, passed with -v) and the count's store
# (to sgc__frame_pops).  A store's address is its symbol (relocation or
# objdump's comment), or a register loaded with the symbol's address (on the
# same straight-line stretch, kept across calls if callee-saved, or the only
# value a callee-saved register takes in the function); a store through a
# register the rule cannot follow is classified by its line instead: uline
# and cline (-v), the statements of the pop that store to sgc_top and to
# sgc__frame_pops.  In each straight-line stretch of code (split at every
# jump, return and jump target) the two must come as pairs in that order:
# unpublish, count, unpublish, count.  A count stored before its pop's
# unpublish (the order that lets the sampler thread copy a frame whose memory
# is being reused, docs/PROFILE.md), two unpublishes in a row, or an
# unpublish with no count after it is reported.  This is stricter than the
# protocol needs (a compiler could, in theory, split a pop's stores across a
# merged tail): a site the rule cannot judge fails rather than passes.
#
# -v only=FN,FN  check only these functions (default: every function with a
#                store of either kind).  Output: "FN: N pops in order" per
# function, "FAIL FN+0xOFF: ..." per fault; exit 1 on any fault.
# -v swap=1      also print "swap US UE CS CE": the listing's line ranges of
#                the first pair found in order (each instruction with its
#                relocation lines), so that a test can swap them.
function flush(   dst, sym, reg, n, ops, i, c, depth, cur, isstore, base) {
    if (paddr == "")
        return
    # Operands split at top-level commas.
    n = 0; cur = ""; depth = 0
    for (i = 1; i <= length(pops); i++) {
        c = substr(pops, i, 1)
        if (c == "(") depth++
        if (c == ")") depth--
        if (c == "," && depth == 0) { ops[++n] = cur; cur = ""; continue }
        cur = cur c
    }
    if (cur != "") ops[++n] = cur
    dst = n ? ops[n] : ""
    sym = ""
    if (dst ~ /\(%rip\)$/ || dst ~ /^-?0x[0-9a-f]+$/) {
        sym = (prel != "") ? prel : pcomment
    } else if (dst ~ /^(0x0)?\(%[a-z0-9]+\)$/) {
        reg = dst; sub(/^[^(]*\(/, "", reg); sub(/\)$/, "", reg)
        if (reg in holds)
            sym = holds[reg]
        else if (((fn, reg) in constdef) && !((fn, reg) in conflict))
            sym = constdef[fn, reg]
    }
    isstore = (n >= 1 && dst !~ /^[%$]/ && pmn !~ /^(cmp|test|bt|ucomis|comis|nop|prefetch|j|call|push|lea)/)
    if (!pass2) {
        # A callee-saved register whose only writes in the function load one
        # symbol's address (and the epilogue's pop) holds that address
        # everywhere in it, across calls and jump targets.
        for (i = 1; i <= n; i++) {
            if (i < n && pmn !~ /^(xchg|xadd|cmpxchg)/)
                continue
            reg = reg64(ops[i])
            if (!calleesaved(reg) || pmn ~ /^(cmp|test|bt|push|pop|leave)/)
                continue
            base = ""
            if (i == n && n == 2 && (pmn ~ /^lea/ || prelkind ~ /GOTPC/) && ops[1] ~ /\(%rip\)$/)
                base = (prel != "") ? prel : pcomment
            if (base == "" || ((fn, reg) in constdef && constdef[fn, reg] != base))
                conflict[fn, reg] = 1
            else
                constdef[fn, reg] = base
        }
        paddr = ""
        return
    }
    # Registers that hold a symbol's address (a relaxed GOT load is a lea);
    # a call keeps only the callee-saved ones.
    if (pmn ~ /^(xchg|xadd|cmpxchg)/)
        for (i = 1; i < n; i++)
            delete holds[reg64(ops[i])]
    if (dst ~ /^%/ && pmn !~ /^(cmp|test|bt|push)/) {
        delete holds[reg64(dst)]
        if ((pmn ~ /^lea/ || prelkind ~ /GOTPC/) && n == 2 && ops[1] ~ /\(%rip\)$/) {
            base = (prel != "") ? prel : pcomment
            if (base != "")
                holds[reg64(dst)] = base
        }
    }
    if (pmn ~ /^call/)
        for (reg in holds)
            if (!calleesaved(reg))
                delete holds[reg]
    inpop = (pinfn ~ /^sgc_frame_pop(\.|$)/ || psrcfile ~ /(^|\/)sgc\.h$/) && psrcline >= lo && psrcline <= hi
    # A store through a register whose value the rule cannot follow (loaded
    # on another path) is classified by its line: the pop's unpublishing and
    # counting statements each store to one place only.
    if (isstore && sym == "" && inpop && dst ~ /^(0x0)?\(%[a-z0-9]+\)$/ && dst !~ /%rsp/)
        sym = (psrcline == uline) ? "sgc_top" : (psrcline == cline) ? "sgc__frame_pops" : ""
    if (isstore && sym == "sgc_top" && (inpop || pinfn ~ /^sgc_frame_pop(\.|$)/))
        { ev[++nev] = "U " paddr; evr[nev] = pstart " " pend }
    else if (isstore && sym == "sgc__frame_pops")
        { ev[++nev] = "C " paddr; evr[nev] = pstart " " pend }
    if (pmn ~ /^(j|ret|ud2)/)
        region()
    paddr = ""
}

# The 64-bit register a register name is part of (%eax -> %rax, %r14d -> %r14).
function reg64(r) {
    if (r ~ /^%r[0-9]+[dwb]$/) { sub(/[dwb]$/, "", r); return r }
    if (r ~ /^%e[a-z][a-z]$/) return "%r" substr(r, 3)
    if (r ~ /^%[abcd][lhx]$/) return "%r" substr(r, 2, 1) "x"
    if (r ~ /^%(si|di|bp|sp)l?$/) return "%r" substr(r, 2, 2)
    return r
}

function calleesaved(r) { return r ~ /^%(rbx|rbp|r12|r13|r14|r15)$/ }

function report(fn, addr, what) {
    printf "FAIL %s+0x%x: %s\n", fn, hex(addr) - hex(fnaddr), what
    faults++
    bad[fn] = 1
}

function hex(s,   i, v, c) {
    v = 0
    s = tolower(s)
    for (i = 1; i <= length(s); i++) {
        c = index("0123456789abcdef", substr(s, i, 1))
        if (c == 0) break
        v = v * 16 + c - 1
    }
    return v
}

# The events of one straight-line stretch, in order.
function region(   i, kind, addr, pending, paddr_u, iu, orphan) {
    pending = 0; orphan = 0
    for (i = 1; i <= nev; i++) {
        kind = substr(ev[i], 1, 1); addr = substr(ev[i], 3)
        if (kind == "U" && orphan) {
            orphan = 0 # the unpublish of the count just reported
        } else if (kind == "U") {
            if (pending)
                report(fn, addr, "a second unpublishing store (sgc_top) before the first pop's count")
            pending = 1; paddr_u = addr; iu = i
        } else if (!pending) {
            report(fn, addr, "the count's store (sgc__frame_pops) comes before its pop's unpublishing store (sgc_top)")
            orphan = 1
        } else {
            pending = 0
            pairs[fn]++
            if (swap && swapline == "")
                swapline = "swap " evr[iu] " " evr[i]
        }
    }
    if (pending)
        report(fn, paddr_u, "an unpublishing store (sgc_top) with no count's store after it in the same straight-line code")
    nev = 0
}

function endfn() {
    flush()
    region()
    if (fn != "" && checking)
        seen[fn] = 1
    fn = ""
}

BEGIN {
    if (only != "") {
        n = split(only, o, ",")
        for (i = 1; i <= n; i++) want[o[i]] = 1
    }
}

FNR == 1 && NR != 1 { endfn(); pass2 = 1 }

# A function's first line: "0000000000005b90 <eval>:"
/^[0-9a-f]+ <[^>]+>:$/ {
    endfn()
    fn = $2; gsub(/[<>:]/, "", fn)
    fnaddr = $1
    checking = (only == "") || (fn in want)
    delete holds
    nev = 0
    next
}

# The (inlined) function the next lines come from: "sgc_frame_pop():".
/^[A-Za-z_][A-Za-z0-9_.]*\(\):$/ {
    flush()
    infn = $0; sub(/\(\):$/, "", infn)
    next
}

# Source position: "/path/runtime/sgc.h:132" or "... (discriminator 2)".
/^[^ \t].*:[0-9]+( \(discriminator [0-9]+\))?$/ && !/^[0-9a-f]+ </ {
    flush()
    s = $0; sub(/ \(discriminator [0-9]+\)$/, "", s)
    srcline = s; sub(/.*:/, "", srcline)
    srcfile = s; sub(/:[0-9]+$/, "", srcfile)
    next
}

# A relocation of the instruction above: "			21: R_X86_64_PC32	sgc_top-0x4".
/^\t\t\t *[0-9a-f]+: R_/ {
    kind = $2; s = $3
    sub(/[-+]0x[0-9a-f]+$/, "", s); sub(/@.*/, "", s)
    pend = FNR
    if (prel == "" || kind ~ /PC32|GOTPC/) {
        prel = s; prelkind = kind
    }
    next
}

# An instruction: "    6124:	addq   $0x1,0x16b1d4(%rip)        # 171300 <sgc__frame_pops>".
/^ *[0-9a-f]+:\t/ {
    flush()
    line = $0
    a = line; sub(/^ */, "", a); sub(/:.*/, "", a)
    body = line; sub(/^ *[0-9a-f]+:\t/, "", body)
    com = ""
    if (index(body, "#")) {
        com = substr(body, index(body, "#") + 1)
        body = substr(body, 1, index(body, "#") - 1)
    }
    gsub(/[ \t]+$/, "", body)
    mn = body; sub(/[ \t].*/, "", mn)
    ops_s = body; sub(/^[^ \t]+[ \t]*/, "", ops_s)
    # "data16 cs nopw" and the like: prefixes before the mnemonic.
    while (mn ~ /^(data16|cs|ds|rex\.?[wrxb]*|lock|rep|repz|repnz|notrack|bnd)$/ && ops_s != "") {
        mn = ops_s; sub(/[ \t].*/, "", mn)
        sub(/^[^ \t]+[ \t]*/, "", ops_s)
    }
    if (!pass2) {
        # Jump targets inside this function end a straight-line stretch.
        if (mn ~ /^j/ && ops_s ~ /^[0-9a-f]+ </) {
            t = ops_s; sub(/ .*/, "", t)
            target[fn, t] = 1
        }
    } else if (checking && (fn SUBSEP a) in target) {
        region()
        delete holds
    }
    paddr = (checking || !pass2) ? a : ""
    pmn = mn; pops = ops_s
    pcomment = ""
    if (com ~ /<[^>+]+>/) {
        pcomment = com; sub(/.*</, "", pcomment); sub(/>.*/, "", pcomment)
    }
    psrcfile = srcfile; psrcline = srcline; pinfn = infn
    prel = ""; prelkind = ""
    pstart = FNR; pend = FNR
    next
}

{ flush() }

END {
    endfn()
    for (f in seen) {
        if (!(f in pairs) && !(f in bad) && only == "")
            continue
        if (!(f in bad))
            printf "%s: %d pops in order\n", f, pairs[f]
    }
    if (only != "")
        for (f in want)
            if (!(f in seen))
                { printf "FAIL %s: not found in the listing\n", f; faults++ }
    if (swapline != "")
        print swapline
    exit faults ? 1 : 0
}
