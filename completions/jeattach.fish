# SPDX-License-Identifier: BSD-2-Clause
# fish completion for jeattach. As in the bash one (completions/jeattach),
# no option is listed here: the jeattach being completed prints its option
# table with its hidden --list-options, one line per option:
#   --NAME -L|- none|required|optional|optional-next VALUE [WORD...]
# read afresh at each completion (a `complete -l` per option, made when
# this file loads, would keep the first jeattach's table for the session).
# This script only knows how to complete each kind of VALUE: pids of
# processes that map jemalloc (pid), their names (process), profile files
# (profile), mallctl names (control), node_exporter textfiles (prom), or
# WORDs.

# Pids of the processes whose maps name jemalloc (a shared libjemalloc;
# static builds are found by their name only), each described by its comm.
function __jeattach_pids
    for m in /proc/*/maps
        string match -qr '^/proc/[0-9]+/maps$' -- $m; or continue
        grep -qs jemalloc $m; or continue
        set -l pid (string split -f3 / -- $m)
        printf '%s\t%s\n' $pid (cat /proc/$pid/comm 2>/dev/null)
    end
end

# __jeattach_files PREFIX CUR [SUFFIX]: fish's own file completion of CUR
# (through a command that has none of its own), directories and the files
# ending in SUFFIX, each after PREFIX ("--frag-profile=").
function __jeattach_files -a prefix cur suffix
    for f in (complete -C"__fish_command_without_completions "(string escape -- $cur))
        set f (string split -f1 \t -- $f)
        if test -z "$suffix"; or string match -q -- '*/' $f; or string match -q -- "*$suffix" $f
            printf '%s%s\n' $prefix $f
        end
    end
end

# __jeattach_value KIND PREFIX CUR WORD...: the values of an option of that
# KIND that complete CUR, each after PREFIX.
function __jeattach_value -a kind prefix cur
    switch $kind
        case pid # --pid 1,2,3: the pids after the ones given
            string match -q -- '*,*' $cur; and set prefix $prefix(string replace -r ',[^,]*$' , -- $cur)
            __jeattach_pids | string replace -r '^' -- $prefix
        case process # --all a,b: the names after the ones given
            string match -q -- '*,*' $cur; and set prefix $prefix(string replace -r ',[^,]*$' , -- $cur)
            __jeattach_pids | string replace -r '^[0-9]+\t' '' | sort -u | string replace -r '^' -- $prefix
        case profile
            __jeattach_files $prefix $cur .heap
        case prom
            __jeattach_files $prefix $cur .prom
        case control # the names of the completed jeattach's own table
            set -l cmd (string replace -r '^~/' "$HOME/" -- (commandline -opc)[1])
            printf "$prefix%s\tmallctl\n" ($cmd --list-controls 2>/dev/null)
        case words
            printf "$prefix%s\n" $argv[4..-1]
    end
end

function __jeattach_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l cmd (string replace -r '^~/' "$HOME/" -- $tokens[1])
    set -l prev $tokens[-1]
    set -l opts
    for line in ($cmd --list-options 2>/dev/null)
        set -l f (string split ' ' -- $line)
        set -l long $f[1]
        set -l short $f[2]
        set -l arg $f[3]
        set -l value $f[4]
        set -l words $f[5..-1]
        if test $arg = none
            set -a opts $long
            continue
        end
        if string match -q -- "$long=*" $cur # --NAME=VALUE
            __jeattach_value $value $long= (string replace -- $long= '' $cur) $words
            return
        end
        # The value given as the next word (an optional one only after
        # --dump and its like).
        if test $arg != optional; and contains -- $prev $long $short
            __jeattach_value $value '' $cur $words
            return
        end
        switch $arg
            case required
                if test $value = words
                    set -a opts $long=
                else
                    set -a opts $long
                end
            case optional
                set -a opts $long $long=$words
            case '*'
                set -a opts $long
        end
    end
    printf '%s\n' $opts
end

complete -c jeattach -f -a '(__jeattach_complete)'
