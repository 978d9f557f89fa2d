#!/usr/bin/env bash
# What Jackson would cost the Java fast client (MiniJson's javadoc): hyperfine -N, side by side,
#   a trivial java main with bin/magus's JVM flags,
#   the fast client's JSON work with MiniJson (the run frame written: argv, cwd, this environment;
#     a diagnostic event frame and the exit frame read into maps),
#   the same work with jackson-core's streaming API only (JsonFactory, JsonGenerator, JsonParser; no databind),
# each JSON variant under a class archive of its own (-XX:ArchiveClassesAtExit, as bin/magus makes
# the fast client's), so that neither reads a class from a jar.
#   bench/client-json-cost.sh [hyperfine options, e.g. --runs 30]
#   bench/client-json-cost.sh --interleave N   (N rounds of the three in turn, each under 'perf stat':
#                                                medians and quartiles of wall and task-clock; steadier on a loaded machine)
# Needs a built checkout (mvn -B -ntp -q package -DskipTests).
set -euo pipefail
here="$(cd "${BASH_SOURCE[0]%/*}" && pwd)"
repo="${here%/bench}"
lib="$repo/cli/target/lib"
command -v hyperfine >/dev/null || { echo "hyperfine not installed (apt-get install hyperfine)" >&2; exit 2; }
server=("$lib"/server-*.jar)
jackson=("$lib"/jackson-core-*.jar)
[[ -f "${server[0]}" && -f "${jackson[0]}" ]] || { echo "not built: run 'mvn -B -ntp -q package -DskipTests' in $repo" >&2; exit 2; }
work="$(mktemp -d "${TMPDIR:-/tmp}/magus-json-cost-XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src/dev/magus/server/client" "$work/classes" "$work/trivial" "$work/run"
printf 'public class Trivial { public static void main(String[] a) { } }\n' > "$work/trivial/Trivial.java"
# In MiniJson's package (package-private access; one class loader, so one runtime package).
cat > "$work/src/dev/magus/server/client/JsonCost.java" <<'EOF'
package dev.magus.server.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class JsonCost {
    static final String EVENT = "{\"type\":\"event\",\"event\":{\"type\":\"diagnostic\",\"code\":\"MGS2003\","
            + "\"severity\":\"info\",\"layer\":\"env\",\"operation\":\"none\",\"source\":\"\",\"message\":"
            + "\"child environment rebuilt from the allowlist: 29 variables dropped\",\"details\":{\"class\":\"info\","
            + "\"dropped\":29,\"ratio\":0.5,\"names\":[\"A\",\"B\"],\"none\":null,\"ok\":true}}}";
    static final String EXIT = "{\"type\":\"exit\",\"status\":0,\"signal\":0}";

    public static void main(String[] args) throws IOException {
        Map<String, String> env = System.getenv();
        String cwd = Path.of("").toAbsolutePath().toString();
        long n;
        if (args[0].equals("minijson")) {
            StringBuilder b = new StringBuilder("{\"type\":\"run\",\"argv\":[");
            MiniJson.quote(b, "true");
            MiniJson.quote(b.append("],\"cwd\":"), cwd);
            b.append(",\"env\":{");
            boolean first = true;
            for (Map.Entry<String, String> e : env.entrySet()) {
                MiniJson.quote(b.append(first ? "" : ","), e.getKey()).append(':');
                MiniJson.quote(b, e.getValue());
                first = false;
            }
            b.append("},\"set\":{},\"unset\":[],\"stdin\":false,\"outputEvents\":false}");
            n = b.toString().getBytes(StandardCharsets.UTF_8).length;
            n += ((Map<?, ?>) MiniJson.parse(EVENT)).size() + ((Map<?, ?>) MiniJson.parse(EXIT)).size();
        } else {
            JsonFactory f = new JsonFactory();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (JsonGenerator g = f.createGenerator(out)) {
                g.writeStartObject();
                g.writeStringField("type", "run");
                g.writeArrayFieldStart("argv");
                g.writeString("true");
                g.writeEndArray();
                g.writeStringField("cwd", cwd);
                g.writeObjectFieldStart("env");
                for (Map.Entry<String, String> e : env.entrySet()) {
                    g.writeStringField(e.getKey(), e.getValue());
                }
                g.writeEndObject();
                g.writeObjectFieldStart("set");
                g.writeEndObject();
                g.writeArrayFieldStart("unset");
                g.writeEndArray();
                g.writeBooleanField("stdin", false);
                g.writeBooleanField("outputEvents", false);
                g.writeEndObject();
            }
            n = out.size();
            for (String s : new String[] {EVENT, EXIT}) {
                byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
                try (JsonParser p = f.createParser(bytes, 0, bytes.length)) {
                    n += ((Map<?, ?>) value(p, p.nextToken())).size();
                }
            }
        }
        if (n == 0) {
            System.out.println(n);
        }
    }

    /** A value as MiniJson.parse gives it: maps, lists, strings, longs, doubles, booleans, null. */
    static Object value(JsonParser p, JsonToken t) throws IOException {
        if (t == JsonToken.START_OBJECT) {
            Map<String, Object> m = new LinkedHashMap<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String k = p.currentName();
                m.put(k, value(p, p.nextToken()));
            }
            return m;
        } else if (t == JsonToken.START_ARRAY) {
            List<Object> l = new ArrayList<>();
            for (JsonToken x; (x = p.nextToken()) != JsonToken.END_ARRAY; ) {
                l.add(value(p, x));
            }
            return l;
        } else if (t == JsonToken.VALUE_STRING) {
            return p.getText();
        } else if (t == JsonToken.VALUE_NUMBER_INT) {
            return p.getLongValue();
        } else if (t == JsonToken.VALUE_NUMBER_FLOAT) {
            return p.getDoubleValue();
        } else if (t == JsonToken.VALUE_TRUE || t == JsonToken.VALUE_FALSE) {
            return t == JsonToken.VALUE_TRUE;
        }
        return null;
    }
}
EOF
javac -XDstringConcat=inline -d "$work/classes" -cp "${server[0]}:${jackson[0]}" "$work/src/dev/magus/server/client/JsonCost.java"
javac -d "$work/trivial" "$work/trivial/Trivial.java"
jar cf "$work/cost.jar" -C "$work/classes" .
flags="-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData -Xshare:auto -Xlog:cds=off,cds+dynamic=off"
cp="$work/cost.jar:${server[0]}:${jackson[0]}"
cd "$work/run"
commands=(-n "trivial java main" "java $flags -cp $work/trivial Trivial")
for v in minijson jackson-core; do
  # shellcheck disable=SC2086
  java $flags -XX:ArchiveClassesAtExit="$work/$v.jsa" -cp "$cp" dev.magus.server.client.JsonCost "$v"
  commands+=(-n "$v" "java $flags -XX:SharedArchiveFile=$work/$v.jsa -cp $cp dev.magus.server.client.JsonCost $v")
done
echo "load before: $(cat /proc/loadavg)"
if [[ "${1:-}" == --interleave ]]; then
  command -v perf >/dev/null || { echo "perf not installed" >&2; exit 2; }
  rounds="${2:-40}"
  : > "$work/rounds"
  for ((i = 0; i < rounds; i++)); do
    for ((k = 0; k < ${#commands[@]}; k += 3)); do
      s=$(date +%s%N)
      # shellcheck disable=SC2086
      perf stat -x, -e task-clock -o "$work/stat" ${commands[k+2]} >/dev/null
      e=$(date +%s%N)
      echo "${commands[k+1]// /_} $(( (e - s) / 1000 )) $(grep task-clock "$work/stat" | cut -d, -f1)" >> "$work/rounds"
    done
  done
  for ((k = 0; k < ${#commands[@]}; k += 3)); do
    name="${commands[k+1]// /_}"
    for col in 2 3; do
      grep "^$name " "$work/rounds" | awk -v c=$col '{print (c == 2 ? $c / 1000 : $c)}' | sort -n |
        awk -v n="$name" -v what="$([[ $col == 2 ]] && echo "wall ms" || echo "task-clock ms")" \
          '{a[NR] = $1} END {printf "%-20s %-14s median %7.1f  q1 %7.1f  q3 %7.1f  (%d rounds)\n", n, what, a[int((NR + 1) / 2)], a[int(NR / 4) + 1], a[int(3 * NR / 4)], NR}'
    done
  done
else
  hyperfine -N --warmup 5 "$@" "${commands[@]}"
fi
echo "load after: $(cat /proc/loadavg)"
echo "nproc: $(nproc)"
