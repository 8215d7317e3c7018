/* cmd_completion.c — `tprof completion bash|zsh`: a completion script made
 * from the command table, the global options, each view's own options and
 * its column keys, so it can never disagree with the binary that wrote it.
 *
 * Bash completes: the view or command as the first word that is not an
 * option; options (the global ones and those of the view already named);
 * the column keys of that view after -c/--columns and --sort, one item of a
 * comma list at a time; the fixed values of --timeunit and --header; file
 * names everywhere else.  Zsh runs the same function through bashcompinit. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "options.h"

static void list_commands(FILE *out)
{
    size_t n;
    const struct cli_command *c = cli_commands(&n);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%s", i ? " " : "", c[i].name);
}

static void list_globals(FILE *out)
{
    size_t n;
    const struct option *o = cli_global_options(&n);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s--%s", i ? " " : "", o[i].name);
        if (o[i].val > 0 && o[i].val < 128)
            fprintf(out, " -%c", o[i].val);
    }
}

/* the global options that take a value, as a case pattern */
static void globals_with_arg(FILE *out)
{
    size_t n;
    const struct option *o = cli_global_options(&n);
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (o[i].has_arg == no_argument)
            continue;
        fprintf(out, "%s--%s", first ? "" : "|", o[i].name);
        if (o[i].val > 0 && o[i].val < 128)
            fprintf(out, "|-%c", o[i].val);
        first = 0;
    }
}

/* case arms: VIEW) echo "WORDS";; for each view with something to say
 * (and diff, whose -c names its own columns) */
static void view_cases(FILE *out, int columns)
{
    if (columns) {
        const tp_view *d = tp_diff_view(0);
        fprintf(out, "        diff) echo \"");
        for (size_t i = 0; d && i < d->ncols; i++)
            fprintf(out, "%s%s", i ? " " : "", tp_view_column_key(d, i));
        fprintf(out, "\";;\n");
    }
    for (const tp_view *const *v = tp_views(); *v; v++) {
        size_t n = 0;
        const struct tp_view_option *o = tp_view_options(*v, &n);
        if (!columns && n == 0)
            continue;
        fprintf(out, "        %s) echo \"", (*v)->name);
        if (columns)
            for (size_t i = 0; i < (*v)->ncols; i++)
                fprintf(out, "%s%s", i ? " " : "", tp_view_column_key(*v, i));
        else
            for (size_t i = 0; i < n; i++)
                fprintf(out, "%s--%s", i ? " " : "", o[i].name);
        fprintf(out, "\";;\n");
    }
}

/* view options that take an argument, as a case pattern */
static void view_options_with_arg(FILE *out)
{
    int first = 1;
    char seen[4096] = " ";
    for (const tp_view *const *v = tp_views(); *v; v++) {
        size_t n = 0;
        const struct tp_view_option *o = tp_view_options(*v, &n);
        for (size_t i = 0; i < n; i++) {
            char key[128];
            snprintf(key, sizeof key, " %s ", o[i].name);
            if (!o[i].arg || strstr(seen, key) || strlen(seen) + strlen(key) >= sizeof seen)
                continue;
            strcat(seen, key + 1);
            fprintf(out, "%s--%s", first ? "" : "|", o[i].name);
            first = 0;
        }
    }
    if (first)
        fprintf(out, "--no-such-option");
}

static void bash_script(FILE *out)
{
    const tp_view *def = tp_views()[0];
    fprintf(out, "# bash completion for tprof %s (made by `tprof completion bash`)\n", tp_version());
    fprintf(out, "_tprof_columns() {\n    case \"$1\" in\n");
    view_cases(out, 1);
    fprintf(out, "        *) _tprof_columns %s;;\n    esac\n}\n", def->name);
    fprintf(out, "_tprof_view_options() {\n    case \"$1\" in\n");
    view_cases(out, 0);
    fprintf(out, "    esac\n}\n");
    fprintf(out, "_tprof() {\n");
    fprintf(out, "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n");
    fprintf(out, "    local commands=\"");
    list_commands(out);
    fprintf(out, "\"\n    local globals=\"");
    list_globals(out);
    fprintf(out, "\"\n");
    fprintf(out,
            "    local view=\"\" w i\n"
            "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
            "        w=\"${COMP_WORDS[i]}\"\n"
            "        case \" $commands \" in *\" $w \"*) view=$w; break;; esac\n"
            "    done\n"
            "    case \"$prev\" in\n"
            "        -c|--columns|--sort)\n"
            "            local pre=\"\" item=\"$cur\" sign=\"\"\n"
            "            case \"$cur\" in *,*) pre=\"${cur%%,*},\"; item=\"${cur##*,}\";; esac\n"
            "            case \"$item\" in [-+]*) sign=\"${item:0:1}\"; item=\"${item:1}\";; esac\n"
            "            COMPREPLY=( $(compgen -W \"$(_tprof_columns \"$view\")\" -P \"$pre$sign\" -- \"$item\") )\n"
            "            compopt -o nospace 2>/dev/null; return;;\n"
            "        --timeunit) COMPREPLY=( $(compgen -W \"ns us ms s\" -- \"$cur\") ); return;;\n"
            "        --header) COMPREPLY=( $(compgen -W \"names keys none\" -- \"$cur\") ); return;;\n"
            "        --capture|-o) COMPREPLY=( $(compgen -f -- \"$cur\") ); return;;\n");
    /* the other options that take a value: nothing to offer for it */
    fprintf(out, "        ");
    globals_with_arg(out);
    fprintf(out, "|");
    view_options_with_arg(out);
    fprintf(out, ") return;;\n    esac\n");
    fprintf(out,
            "    if [[ \"$cur\" == -* ]]; then\n"
            "        COMPREPLY=( $(compgen -W \"$globals $(_tprof_view_options \"$view\")\" -- \"$cur\") ); return\n"
            "    fi\n"
            "    case \"$view\" in\n"
            "        help) [ \"$prev\" = help ] && COMPREPLY=( $(compgen -W \"$commands\" -- \"$cur\") ); return;;\n"
            "        completion) COMPREPLY=( $(compgen -W \"bash zsh\" -- \"$cur\") ); return;;\n"
            "        \"\") COMPREPLY=( $(compgen -W \"$commands\" -- \"$cur\") $(compgen -f -- \"$cur\") ); return;;\n"
            "    esac\n"
            "    COMPREPLY=( $(compgen -f -- \"$cur\") )\n"
            "}\n"
            "complete -o default -o bashdefault -F _tprof tprof\n");
}

int cmd_completion(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "bash") == 0) {
        bash_script(stdout);
    } else if (argc == 2 && strcmp(argv[1], "zsh") == 0) {
        printf("#compdef tprof\n# zsh completion for tprof: the bash completion, through bashcompinit\n"
               "autoload -U +X bashcompinit && bashcompinit\n");
        bash_script(stdout);
    } else if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("usage: tprof completion bash|zsh\n"
               "Print a completion script: source it, or let `make install` put it where\n"
               "bash-completion and zsh look (share/bash-completion/completions/tprof,\n"
               "share/zsh/site-functions/_tprof).\n");
    } else {
        fprintf(stderr, "tprof: usage: tprof completion bash|zsh\n");
        return 2;
    }
    return fflush(stdout) == 0 ? 0 : 2;
}
