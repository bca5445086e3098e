# SPDX-License-Identifier: BSD-2-Clause
# fish completion for jeheap. As in the bash one (completions/jeheap), no
# command or option is listed here: the jeheap being completed prints its
# table (jeheap/jeheap_table.c) with its hidden --list-commands and
# --list-options, one line each:
#   NAME OPERAND shared|own space|equals
#   --NAME|- -L|- none|required|optional VALUE COMMAND[,COMMAND...]
# read afresh at each completion. This script only knows how to complete
# each kind of operand or VALUE: heap profiles (profile), jeattach
# --recent's records (record), directories (dir), any file (file), command
# names (command).

# __jeheap_value KIND PREFIX CUR COMMAND...: the KINDs that complete CUR,
# each after PREFIX ("--base="); COMMAND...: jeheap's commands.
function __jeheap_value -a kind prefix cur
    set -l suffix
    switch $kind
        case command
            printf '%s\n' $argv[4..-1]
            return
        case profile
            set suffix '.heap*' # name.heap, name.heap.gz
        case record
            set suffix .json
        case dir file
        case '*'
            return # a value, nothing to offer
    end
    # fish's own file completion of CUR, through a command that has none
    # of its own; directories, and the files of the kind.
    for f in (complete -C"__fish_command_without_completions "(string escape -- $cur))
        set f (string split -f1 \t -- $f)
        if string match -q -- '*/' $f
            printf '%s%s\n' $prefix $f
        else if test $kind = file; or string match -q -- "*$suffix" $f
            test $kind = dir; or printf '%s%s\n' $prefix $f
        end
    end
end

function __jeheap_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l bin (string replace -r '^~/' "$HOME/" -- $tokens[1])
    set -l prev $tokens[-1]
    set -l cmds
    set -l kinds
    set -l joins
    set -l shared
    for line in ($bin --list-commands 2>/dev/null)
        set -l f (string split ' ' -- $line)
        set -a cmds $f[1]
        set -a kinds $f[2]
        set -a joins $f[4]
        test $f[3] = shared; and set -a shared $f[1]
    end
    # The command: the first word before this one that names one.
    set -l cmd
    set -l kind profile
    set -l join space
    for w in $tokens[2..-1]
        if set -l i (contains -i -- $w $cmds)
            set cmd $w
            set kind $kinds[$i]
            set join $joins[$i]
            break
        end
    end
    set -l opts
    for line in ($bin --list-options 2>/dev/null)
        set -l f (string split ' ' -- $line)
        set -l long $f[1]
        set -l short $f[2]
        set -l arg $f[3]
        set -l value $f[4]
        set -l takes (string split , -- $f[5])
        # Before any command: the options the profile commands share;
        # after it, that command's own.
        if test -n "$cmd"
            contains -- $cmd $takes; or continue
        else
            set -l any
            for c in $takes
                contains -- $c $shared; and set any 1
            end
            test -n "$any"; or continue
        end
        test $long = -; and set long $short
        if test $arg != none
            if string match -q -- "$long=*" $cur # --NAME=VALUE
                __jeheap_value $value $long= (string replace -- $long= '' $cur)
                return
            end
            if test $arg = required; and contains -- $prev $long $short
                __jeheap_value $value '' $cur
                return
            end
        end
        if test $join = equals; and test $arg = required
            set -a opts $long=
        else
            set -a opts $long
        end
    end
    if string match -q -- '-*' $cur
        printf '%s\n' $opts | sort -u
    else if test -z "$cmd"
        printf '%s\n' $cmds
    else
        __jeheap_value $kind '' $cur $cmds
    end
end

complete -c jeheap -f -a '(__jeheap_complete)'
