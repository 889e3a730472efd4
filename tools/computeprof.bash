# bash completion for computeprof(1); installed as
# <datadir>/bash-completion/completions/computeprof.

_computeprof() {
  local cur prev words cword split=false
  if declare -F _init_completion >/dev/null 2>&1; then
    _init_completion -s || return
  else
    _computeprof_words
  fi

  # After `--`, `stats` or the application's name: not computeprof's options any more.
  local i
  for ((i = 1; i < cword; i++)); do
    case ${words[i]} in
      --)
        _computeprof_command $((i + 1))
        return
        ;;
      stats)
        if ((i == 1)); then
          _computeprof_files
          return
        fi
        _computeprof_command "$i"
        return
        ;;
      -o | --output | --config | --counters | --chip | --export | --kernels | --kernel-exclude | \
        --launch-skip | --launch-count | --kernel-filter-scope)
        ((i++))
        ;;
      -*) ;;
      *)
        _computeprof_command "$i"
        return
        ;;
    esac
  done

  # An option's value: the next word, or after '=' ($split).
  case $prev in
    -o | --output | --config)
      _computeprof_files
      return
      ;;
    --export)
      _computeprof_list "json sqlite json,sqlite"
      return
      ;;
    --kernel-filter-scope)
      _computeprof_list "counters all"
      return
      ;;
    --chip)
      _computeprof_list "GH100 GA100 TU102 AD102 GB100"
      return
      ;;
    --counters | --kernels | --kernel-exclude | --launch-skip | --launch-count)
      return
      ;;
  esac
  $split && return

  case $cur in
    -*)
      _computeprof_list "--csv -o --output --config --counters --query-counters --chip --version -h --help \
--conckerneltrace --export --print-summary --memtrace --callstack --callstack= --kernels \
--kernel-exclude --launch-skip --launch-count --kernel-filter-scope --"
      [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
      return
      ;;
  esac
  if ((cword == 1)); then
    _computeprof_list "stats"
  fi
  # The application.
  COMPREPLY+=($(compgen -c -- "$cur"))
  [[ $cur == */* ]] && _computeprof_files
}

# Without the bash-completion package: what `_init_completion -s` gives, words with
# "--option=value" joined again (bash splits them at '=') and the value split off.
_computeprof_words() {
  COMPREPLY=()
  words=()
  cword=0
  local i word
  for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
    word=${COMP_WORDS[i]}
    if ((${#words[@]} > 0)) && [[ ${words[-1]} == --?* ]] &&
      [[ $word == = || ${words[-1]} == --?*= ]]; then
      words[-1]+=$word
    else
      words+=("$word")
    fi
    ((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))
  done
  cur=${words[cword]-}
  prev=${words[cword - 1]-}
  if [[ $cur == --?*=* ]]; then
    prev=${cur%%=*}
    cur=${cur#*=}
    split=true
  fi
}

_computeprof_list() {
  local IFS=$' \t\n'
  COMPREPLY+=($(compgen -W "$1" -- "$cur"))
}

_computeprof_files() {
  local IFS=$'\n'
  COMPREPLY+=($(compgen -f -- "$cur"))
  compopt -o filenames 2>/dev/null
}

# Words from $1 on are a command line of their own.
_computeprof_command() {
  local offset=$1
  if declare -F _command_offset >/dev/null 2>&1; then
    _command_offset "$offset"
  elif ((offset == cword)); then
    COMPREPLY=($(compgen -c -- "$cur"))
  else
    _computeprof_files
  fi
}

complete -F _computeprof computeprof
