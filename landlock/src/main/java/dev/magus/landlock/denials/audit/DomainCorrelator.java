package dev.magus.landlock.denials.audit;

import dev.magus.landlock.launch.DomainTag;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.LongFunction;

/**
 * Attributes access records to the runs that own their Landlock domain. Pure state, not
 * thread-safe: the caller serialises.
 *
 * <p>The audit stream carries every confined process of the host. A domain's allocation record
 * names the process and thread that created it; magus's launch threads are named after the
 * spawn's {@link DomainTag}, so such a domain belongs at once to the run registered with that
 * tag, even after the child exited. A domain of this process without a known tag belongs to the
 * only run in flight, or else to the run of its first record naming a run's process. A domain
 * of another process is the run's when that process is a registered one or a live descendant (a
 * nested sandbox). Records may precede the registration of the child just spawned, so
 * unattributed ones wait, in bounded number.
 */
public final class DomainCorrelator {

    /** An access record and the run it belongs to. */
    public record Attributed(String runId, AuditRecord.Access access) {
    }

    private static final int MAX_PENDING = 4096;
    private static final int MAX_ANCESTRY = 64;

    private final long selfPid;
    private final LongFunction<OptionalLong> parentOf;
    private final Map<Long, String> runByPid = new HashMap<>();
    private final Map<String, String> runByTag = new HashMap<>();
    private final Set<String> runs = new LinkedHashSet<>();
    private final Map<String, String> runByDomain = new HashMap<>();
    /** Domains of ended runs: their late records are dropped, not kept waiting. */
    private final Map<String, Boolean> retired = bounded();
    /** Domains of other processes seen allocated but not attributable yet: domain -> creating pid. */
    private final Map<String, Long> foreignDomains = bounded();
    /** Domains of this process whose tag no registered run has (yet): domain -> tag ("" for none). */
    private final Map<String, String> ownDomains = bounded();
    /** Access records whose domain is not attributed yet, by serial. */
    private final Map<Long, AuditRecord.Access> pending = bounded();
    /** Syscall records of waiting access records whose process was not known when they came. */
    private final Map<Long, AuditRecord.Syscall> pendingSyscalls = bounded();

    /**
     * @param selfPid  this process's pid: the creator the kernel names for the domains of
     *                 magus's children
     * @param parentOf a live process's parent pid (empty when gone), for processes below the
     *                 registered ones
     */
    public DomainCorrelator(long selfPid, LongFunction<OptionalLong> parentOf) {
        this.selfPid = selfPid;
        this.parentOf = Objects.requireNonNull(parentOf, "parentOf");
    }

    /**
     * Ties a spawned child to a run; returns the waiting records this explains.
     *
     * @param tag the child's {@link DomainTag}, empty when it has none
     */
    public List<Attributed> register(String runId, long pid, String tag) {
        runByPid.put(pid, runId);
        if (!tag.isEmpty()) {
            runByTag.put(tag, runId);
        }
        runs.add(runId);
        List<Attributed> out = new ArrayList<>();
        for (Map.Entry<String, String> e : List.copyOf(ownDomains.entrySet())) {
            boolean mine = !tag.isEmpty() && e.getValue().equals(tag);
            boolean onlyRun = e.getValue().isEmpty() && runs.size() == 1;
            if (mine || onlyRun) {
                out.addAll(attribute(e.getKey(), runId));
            }
        }
        for (Map.Entry<String, Long> e : List.copyOf(foreignDomains.entrySet())) {
            if (e.getValue() == pid) {
                out.addAll(attribute(e.getKey(), runId));
            }
        }
        for (AuditRecord.Syscall s : List.copyOf(pendingSyscalls.values())) {
            AuditRecord.Access a = pending.get(s.serial());
            if (a == null || runByDomain.containsKey(a.domain())) {
                pendingSyscalls.remove(s.serial());
            } else if (s.pid() == pid || s.ppid() == pid || runOf(s.pid()).filter(runId::equals).isPresent()) {
                pendingSyscalls.remove(s.serial());
                out.addAll(attribute(a.domain(), runId));
            }
        }
        return out;
    }

    /** Forgets a run: its pids, tag and domains (whose later records are dropped). */
    public void unregister(String runId) {
        runs.remove(runId);
        runByPid.values().removeIf(runId::equals);
        runByTag.values().removeIf(runId::equals);
        for (Iterator<Map.Entry<String, String>> it = runByDomain.entrySet().iterator(); it.hasNext();) {
            Map.Entry<String, String> e = it.next();
            if (e.getValue().equals(runId)) {
                retired.put(e.getKey(), Boolean.TRUE);
                it.remove();
            }
        }
    }

    /** How many runs are registered. */
    public int runsInFlight() {
        return runs.size();
    }

    /** The attributed access records one record makes known: none, itself, or waiting ones. */
    public List<Attributed> accept(AuditRecord record) {
        if (record instanceof AuditRecord.Access a) {
            String run = runByDomain.get(a.domain());
            if (run != null) {
                return List.of(new Attributed(run, a));
            }
            if (!retired.containsKey(a.domain())) {
                pending.put(a.serial(), a);
            }
            return List.of();
        }
        if (record instanceof AuditRecord.Domain d) {
            return domain(d);
        }
        if (record instanceof AuditRecord.Syscall s) {
            AuditRecord.Access a = pending.get(s.serial());
            if (a == null || runByDomain.containsKey(a.domain())) {
                return List.of();
            }
            Optional<String> run = runOf(s.pid()).or(() -> runOf(s.ppid()));
            if (run.isPresent()) {
                return attribute(a.domain(), run.get());
            }
            pendingSyscalls.put(s.serial(), s);
        }
        return List.of();
    }

    private List<Attributed> domain(AuditRecord.Domain d) {
        if (!d.allocated()) {
            // Domain ids are never reused: the maps only need to forget it. Records of it that
            // still wait for their run stay (bounded): a child that exited at once has its
            // domain freed before magus may have registered it.
            runByDomain.remove(d.domain());
            retired.remove(d.domain());
            foreignDomains.remove(d.domain());
            return List.of();
        }
        if (runByDomain.containsKey(d.domain()) || d.pid().isEmpty()) {
            return List.of();
        }
        long creator = d.pid().getAsLong();
        if (creator == selfPid) {
            String tag = d.comm().startsWith(DomainTag.PREFIX) ? d.comm() : "";
            String run = tag.isEmpty() ? (runs.size() == 1 ? runs.iterator().next() : null) : runByTag.get(tag);
            if (run != null) {
                return attribute(d.domain(), run);
            }
            ownDomains.put(d.domain(), tag);
            return List.of();
        }
        Optional<String> run = runOf(creator);
        if (run.isPresent()) {
            return attribute(d.domain(), run.get());
        }
        foreignDomains.put(d.domain(), creator);
        return List.of();
    }

    private List<Attributed> attribute(String domain, String runId) {
        runByDomain.put(domain, runId);
        ownDomains.remove(domain);
        foreignDomains.remove(domain);
        List<Attributed> out = new ArrayList<>();
        for (Iterator<AuditRecord.Access> it = pending.values().iterator(); it.hasNext();) {
            AuditRecord.Access a = it.next();
            if (a.domain().equals(domain)) {
                it.remove();
                pendingSyscalls.remove(a.serial());
                out.add(new Attributed(runId, a));
            }
        }
        return out;
    }

    private Optional<String> runOf(long pid) {
        long p = pid;
        for (int i = 0; i < MAX_ANCESTRY && p > 1 && p != selfPid; i++) {
            String run = runByPid.get(p);
            if (run != null) {
                return Optional.of(run);
            }
            OptionalLong parent = parentOf.apply(p);
            if (parent.isEmpty()) {
                return Optional.empty();
            }
            p = parent.getAsLong();
        }
        return Optional.empty();
    }

    private static <K, V> Map<K, V> bounded() {
        return new LinkedHashMap<>() {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > MAX_PENDING;
            }
        };
    }
}
