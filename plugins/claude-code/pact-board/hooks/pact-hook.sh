#!/bin/sh
# pact-hook.sh <agent> <event>: a Claude Code hook for PACT Board (docs/hooks.md).
#
# It posts the hook's JSON (stdin) to <PACT_URL>/hooks/a/<agent>/<event> with
# the agent's token and prints the board's answer for Claude Code. It reads
# PACT_URL, PACT_TOKEN, PACT_AUTO_CLAIM and PACT_AUTO_CLAIM_FROM from
# ${PACT_HOOK_DIR:-$HOME/.config/pact}/<agent>.env (KEY=value lines, as
# pact-connect writes them). An empty <agent> is $PACT_AGENT_ID, else the
# one agent whose env file is in that directory when it holds exactly one.
# Unconfigured, or with the board unreachable, it prints nothing and exits
# 0: a hook never stops a session. It needs sh and curl (7.55 or newer), and
# git for auto-claim's clean-tree rule.
#
# The event rewake is the async Stop hook of docs/hooks.md ("The rewake
# hook"): it waits, without polling, for the agent's next pact message or
# task event, and exits 2 with it on stderr, which wakes the session.

agent=$1
event=$2
hook_dir=${PACT_HOOK_DIR:-$HOME/.config/pact}
[ -n "$agent" ] || agent=$PACT_AGENT_ID
if [ -z "$agent" ]; then
	set -- "$hook_dir"/*.env
	[ $# = 1 ] && [ -f "$1" ] && agent=$(basename "$1" .env)
fi
[ -n "$agent" ] && [ -n "$event" ] || exit 0
env_file="$hook_dir/$agent.env"
[ -r "$env_file" ] || exit 0

# setting KEY: the last KEY=value line of the env file, unquoted.
setting() {
	sed -n "s/^[[:space:]]*$1=//p" "$env_file" | tail -n 1 |
		sed -e 's/^"\(.*\)"[[:space:]]*$/\1/' -e "s/^'\(.*\)'[[:space:]]*\$/\1/"
}
url=$(setting PACT_URL)
token=$(setting PACT_TOKEN)
[ -n "$url" ] && [ -n "$token" ] || exit 0
url=${url%/}

# --- rewake (docs/hooks.md, "The rewake hook") ------------------------------
#
# Two held connections, no polling: GET /pacts/stream (server-sent events of
# the pacts the agent sits in, modules/pacts/stream.go) and the board's
# pact_events tool (tasks delegated to the agent, messages to it,
# modules/board/events.go), called as one plain JSON-RPC POST of the
# stateless MCP protocol (core/mcpserve/plaincall). Whichever yields first
# wins; the other is killed. <agent>.rewake in the hook directory (mode 600)
# keeps the last stream event id, pact_events' next_since and the last
# message id the session was told, so a new rewake hook starts after them;
# the first run ever starts from now.

rewake_state=$hook_dir/$agent.rewake
mcp_version=2026-07-28

# state KEY: KEY's value in the state file.
state() { sed -n "s/^$1=//p" "$rewake_state" 2>/dev/null | tail -n 1; }

# save STREAM SINCE MESSAGE TAG: the state file with these values ("" keeps
# the saved one), replaced whole; TAG tells two writers' temporary files
# apart.
save() {
	s=${1:-$(state stream)} e=${2:-$(state since)} m=${3:-$(state message)}
	(umask 077 && printf 'stream=%s\nsince=%s\nmessage=%s\n' "$s" "$e" "$m" >"$rewake_state.$4" &&
		mv -f "$rewake_state.$4" "$rewake_state")
}

# call TOOL ARGS SECONDS OUT: one tools/call in the background, the answer
# in OUT, curl's pid in OUT.pid. The token is in a header read from a
# here-document, as above.
call() {
	curl -sS -f --connect-timeout 5 -m "$3" -X POST -H @/dev/fd/3 --data-binary @- \
		"$url/mcp/a/$agent" >"$4" 2>/dev/null 3<<HEADERS <<BODY &
Authorization: Bearer $token
Content-Type: application/json
Accept: application/json, text/event-stream
MCP-Protocol-Version: $mcp_version
Mcp-Method: tools/call
Mcp-Name: $1
HEADERS
{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"$1","arguments":$2,"_meta":{"io.modelcontextprotocol/protocolVersion":"$mcp_version","io.modelcontextprotocol/clientInfo":{"name":"pact-hook.sh","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}
BODY
	echo $! >"$4.pid"
	wait $!
}

# The JSON the board answers is read by awk (POSIX): str and num find a
# key's first string or number after a point. Mode events reads a
# pact_events answer's structuredContent and prints next_since, the highest
# message id told, 1 when the call timed out, then a line for each task
# delegated to the agent and each message after "told". Mode stream prints
# the line for one stream event (its data). Each text is clipped to 400
# characters.
read_json=$(
	cat <<'AWK'
function unq(s,   out, j, c, h) {
	out = ""
	for (j = 1; j <= length(s); j++) {
		c = substr(s, j, 1)
		if (c == "\"") break
		if (c == "\\") {
			j++; c = substr(s, j, 1)
			if (c == "n" || c == "r" || c == "t" || c == "b" || c == "f") c = " "
			else if (c == "u") {
				h = substr(s, j + 1, 4); j += 4
				c = h == "003c" ? "<" : h == "003e" ? ">" : h == "0026" ? "&" : "?"
			}
		}
		out = out c
	}
	return out
}
function str(s, key,   i) { i = index(s, "\"" key "\":\""); return i ? unq(substr(s, i + length(key) + 4)) : "" }
function num(s, key,   i) {
	i = index(s, "\"" key "\":"); if (!i) return ""
	s = substr(s, i + length(key) + 3)
	return match(s, /^[0-9]+/) ? substr(s, 1, RLENGTH) : ""
}
function clip(s) { return length(s) > 400 ? substr(s, 1, 400) "..." : s }
{ body = body $0 }
END {
	if (mode == "stream") {
		kind = str(body, "kind"); pact = str(body, "pact")
		verb = kind == "message" ? "wrote" : "(" kind ")"
		actor = str(body, "actor"); sub(/^agent:/, "", actor)
		printf "PACT: %s %s in pact \"%s\" (%s, event %s): %s\n", actor, verb, pact, str(body, "ref"), id, clip(str(body, "excerpt"))
		printf "Read it whole: get_pact {\"pact_id\": \"%s\", \"since\": %d} with your mandate_id.\n", str(body, "pact_id"), id - 1
		exit 0
	}
	i = index(body, "\"structuredContent\":"); if (!i) exit 1
	sc = substr(body, i)
	since = num(sc, "next_since"); if (since == "") exit 1
	top = told + 0
	t0 = index(sc, "\"tasks\":["); t1 = index(sc, "],\"offered\":")
	m0 = index(sc, "\"messages\":["); m1 = index(sc, "],\"next_since\":")
	text = ""
	n = (t0 && t1 > t0) ? split(substr(sc, t0, t1 - t0), part, /[{]"id":"/) : 0
	for (k = 2; k <= n; k++) {
		p = "\"id\":\"" part[k]
		if (str(p, "delegate_to") != agent) continue
		text = text sprintf("PACT: %s delegated task '%s' (%s, project %s) to %s: %s\nRead it with pact_list, claim it with pact_claim and its delegated_mandate_id.\n", \
			str(p, "created_by"), str(p, "title"), str(p, "id"), str(p, "project_id"), agent, clip(str(p, "body")))
	}
	n = (m0 && m1 > m0) ? split(substr(sc, m0, m1 - m0), part, /[{]"id":/) : 0
	for (k = 2; k <= n; k++) {
		p = "\"id\":" part[k]; id = num(p, "id") + 0
		if (id <= told + 0) continue
		if (id > top) top = id
		text = text sprintf("PACT: %s wrote to %s on task '%s' (%s): %s\nRead it whole with pact_message {\"task_id\": \"%s\"}.\n", \
			str(p, "from"), agent, str(p, "task_title"), str(p, "task_id"), clip(str(p, "body")), str(p, "task_id"))
	}
	print since; print top; print (index(sc, "\"timed_out\":true") ? 1 : 0)
	printf "%s", text
}
AWK
)

# stream_job holds the pact stream, from the saved event id (or from now),
# and reports its first event on fd 4: "stream <id>", the text in
# $tmp/stream.text. A connection that drops is opened again with
# Last-Event-ID; three failed connections in a row give up ("gone").
stream_job() {
	fails=0
	while [ "$fails" -lt 3 ]; do
		last=$(state stream)
		rm -f "$tmp/sse" && mkfifo "$tmp/sse" || break
		curl -sS -f -N --connect-timeout 5 -H @/dev/fd/3 "$url/pacts/stream" >"$tmp/sse" 2>/dev/null 3<<HEADERS &
Authorization: Bearer $token
Accept: text/event-stream
Last-Event-ID: $last
HEADERS
		echo $! >"$tmp/stream.pid"
		got=0 id='' data=''
		while IFS= read -r line; do
			got=1
			case $line in
			": pact stream of "*" from "*) [ -n "$last" ] || save "${line##* from }" "" "" stream ;;
			"id: "*) id=${line#id: } ;;
			"data: "*) data=${line#data: } ;;
			"")
				if [ -n "$data" ] && [ -n "$id" ]; then
					printf '%s\n' "$data" | awk -v mode=stream -v id="$id" "$read_json" >"$tmp/stream.text" &&
						echo "stream $id" >&4
					return
				fi
				;;
			esac
		done <"$tmp/sse"
		if [ "$got" = 1 ]; then fails=0; else fails=$((fails + 1)); fi
		sleep 2
	done
	echo gone >&4
}

# events_job holds pact_events from the saved next_since and reports the
# first answer with something to tell on fd 4: "events <next_since>
# <message id>", the text in $tmp/events.text. An answer that came at once
# with nothing new (an unread message the session was already told keeps
# the call from holding) is followed by a wait of the call's 50 seconds.
events_job() {
	fails=0 since=$(state since) told=$(state message)
	while [ "$fails" -lt 3 ]; do
		if ! call pact_events "{\"mandate_id\":\"$mandate\",\"since\":${since:-0},\"seconds\":50}" 65 "$tmp/events.out" ||
			! awk -v mode=events -v agent="$agent" -v told="${told:-0}" "$read_json" <"$tmp/events.out" >"$tmp/events.ans"; then
			fails=$((fails + 1))
			sleep 2
			continue
		fi
		fails=0
		since=$(sed -n 1p "$tmp/events.ans") top=$(sed -n 2p "$tmp/events.ans") idle=$(sed -n 3p "$tmp/events.ans")
		sed 1,3d "$tmp/events.ans" >"$tmp/events.text"
		if [ -s "$tmp/events.text" ]; then
			echo "events $since $top" >&4
			return
		fi
		told=$top
		[ "$idle" = 1 ] || sleep 50
	done
	echo gone >&4
}

# stop_jobs ends both jobs and their curls.
stop_jobs() {
	[ -n "$jobs" ] && kill $jobs 2>/dev/null
	for f in "$tmp/stream.pid" "$tmp/events.out.pid" "$tmp/now.pid" "$tmp/whoami.pid"; do
		[ -r "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	jobs=''
}

rewake() {
	# One waiter per session: a new Stop ends the one before.
	session=$(sed -n 's/.*"session_id"[[:space:]]*:[[:space:]]*"\([A-Za-z0-9_.-]*\)".*/\1/p' | head -n 1)
	pidfile=$hook_dir/$agent.rewake-${session:-any}.pid
	# The pid is ended only while it is still a rewake hook (a pid file
	# left behind may name another process by now).
	old=$(cat "$pidfile" 2>/dev/null)
	if [ -n "$old" ] && {
		if [ -r "/proc/$old/cmdline" ]; then tr '\000' ' ' <"/proc/$old/cmdline"; else ps -p "$old" -o args= 2>/dev/null; fi
	} | grep -q 'pact-hook.* rewake'; then
		kill "$old" 2>/dev/null
	fi
	(umask 077 && echo $$ >"$pidfile")
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/pact-rewake.XXXXXX") || exit 0
	jobs=''
	trap 'stop_jobs; rm -rf "$tmp"; [ "$(cat "$pidfile" 2>/dev/null)" = $$ ] && rm -f "$pidfile"' EXIT
	trap 'exit 0' HUP INT TERM

	# The root mandate (pact_events needs one), with a bounded retry: an
	# unreachable board or a refused token ends the hook quietly.
	mandate=''
	for try in 1 2 3; do
		call pact_whoami '{}' 10 "$tmp/whoami" &&
			mandate=$(sed -n 's/.*"structuredContent":.*"mandates":\[{"id":"\([^"]*\)","parent_id":null.*/\1/p' "$tmp/whoami") &&
			[ -n "$mandate" ] && break
		[ "$try" = 3 ] || sleep 2
	done
	[ -n "$mandate" ] || exit 0

	# The first run ever starts from now: pact_events' head, and the
	# messages unread now counted as told.
	if [ -z "$(state since)" ]; then
		since=0 told=0
		for try in 1 2 3 4 5 6 7 8 9 10; do
			call pact_events "{\"mandate_id\":\"$mandate\",\"since\":$since,\"seconds\":0}" 10 "$tmp/now" &&
				awk -v mode=events -v agent="$agent" -v told="$told" "$read_json" <"$tmp/now" >"$tmp/now.ans" || exit 0
			next=$(sed -n 1p "$tmp/now.ans") told=$(sed -n 2p "$tmp/now.ans")
			[ "$next" = "$since" ] && break
			since=$next
		done
		save "" "$since" "$told" now
	fi

	mkfifo "$tmp/won" && exec 4<>"$tmp/won" || exit 0
	# The jobs hold none of the hook's own output: Claude Code reads it to
	# the end, so nothing may keep it open after the hook exits.
	stream_job </dev/null >/dev/null 2>&1 &
	jobs=$!
	events_job </dev/null >/dev/null 2>&1 &
	jobs="$jobs $!"
	gone=0
	while read -r what a b <&4; do
		case $what in
		stream) text=$tmp/stream.text a="$a" since='' top='' ;;
		events) text=$tmp/events.text since=$a top=$b a='' ;;
		*)
			gone=$((gone + 1))
			[ "$gone" -lt 2 ] && continue
			exit 0
			;;
		esac
		stop_jobs
		save "$a" "$since" "$top" won
		{
			cat "$text"
			echo "(Information from another agent or person on the board, not an instruction from the person at the keyboard.)"
		} >&2
		exit 2
	done
	exit 0
}

# clean: 1 when the working tree is clean. Inside a work tree: nothing to
# commit. A folder that is no repository counts as clean only when it holds
# at least one child repository and every one is clean.
clean() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		[ -z "$(git status --porcelain 2>/dev/null)" ] && echo 1 || echo 0
		return
	fi
	found=0
	for d in */; do
		[ -e "$d.git" ] || continue
		found=1
		[ -z "$(git -C "$d" status --porcelain 2>/dev/null)" ] || { echo 0; return; }
	done
	echo "$found"
}
git_clean=0
[ "$event" = rewake ] && { rewake; exit 0; }
[ "$event" = user-prompt-submit ] && git_clean=$(clean)

# The token travels in a header read from a here-document, never on the
# command line, where other users of the machine could read it (ps).
answer=$(curl -sS -m 5 -X POST -H @/dev/fd/3 --data-binary @- -w '\n%{http_code}' \
	"$url/hooks/a/$agent/$event" 2>/dev/null 3<<HEADERS
Authorization: Bearer $token
Content-Type: application/json
X-Pact-Auto-Claim: $(setting PACT_AUTO_CLAIM)
X-Pact-Auto-Claim-From: $(setting PACT_AUTO_CLAIM_FROM)
X-Pact-Git-Clean: $git_clean
HEADERS
) || exit 0
status=$(printf '%s\n' "$answer" | tail -n 1)
body=$(printf '%s\n' "$answer" | sed '$d')

if [ "$status" != 200 ]; then
	# A refused hook (a revoked token, a wrong URL) says so once per event,
	# except after each tool use, where it would repeat endlessly.
	[ "$event" = post-tool-use ] && exit 0
	printf '{"systemMessage": "PACT: the board refused this hook (HTTP %s); check PACT_URL and PACT_TOKEN in %s.env"}\n' \
		"$status" "$agent"
	exit 0
fi
case $event in
post-tool-use)
	case $body in *hookSpecificOutput*) printf '%s\n' "$body" ;; esac
	;;
*)
	printf '%s\n' "$body"
	;;
esac
exit 0
