package dev.magus.landlock.denials.audit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongFunction;

/**
 * Attributes access records to the runs that own their Landlock domain. Pure state, not
 * thread-safe: the caller serialises.
 *
 * <p>The audit stream carries every confined process of the host, not only magus's children.
 * A domain is tied to a run when its allocation record names a pid magus registered for that
 * run (the launcher restricts itself and then execs, so the domain's creator is the pid
 * magus spawned), or a descendant of one (a nested sandbox stacks its own domain), or when
 * the syscall record of one of its denials names such a process. Records may arrive before
 * the orchestrator has registered the pid it just spawned, so unattributed records wait, in
 * bounded number, for a registration that may explain them.
 */
public final class DomainCorrelator {

    /** An access record and the run it belongs to. */
    public record Attributed(String runId, AuditRecord.Access access) {
    }

    private static final int MAX_PENDING = 1024;
    private static final int MAX_ANCESTRY = 64;

    private final LongFunction<OptionalLong> parentOf;
    private final Map<Long, String> runByPid = new HashMap<>();
    private final Map<String, String> runByDomain = new HashMap<>();
    /** Domains seen allocated but not (yet) attributable: domain -> creating pid. */
    private final Map<String, Long> unknownDomains = bounded();
    /** Access records whose domain is not attributed yet, by serial. */
    private final Map<Long, AuditRecord.Access> pending = bounded();

    /**
     * @param parentOf a live process's parent pid (empty when gone), for processes below the
     *                 registered ones
     */
    public DomainCorrelator(LongFunction<OptionalLong> parentOf) {
        this.parentOf = Objects.requireNonNull(parentOf, "parentOf");
    }

    /** Ties a spawned pid to a run; returns the waiting records this explains. */
    public List<Attributed> register(String runId, long pid) {
        runByPid.put(pid, runId);
        List<Attributed> out = new ArrayList<>();
        for (Iterator<Map.Entry<String, Long>> it = unknownDomains.entrySet().iterator(); it.hasNext();) {
            Map.Entry<String, Long> e = it.next();
            if (e.getValue() == pid) {
                it.remove();
                out.addAll(attribute(e.getKey(), runId));
            }
        }
        return out;
    }

    /** Forgets a run: its pids and domains. */
    public void unregister(String runId) {
        runByPid.values().removeIf(runId::equals);
        runByDomain.values().removeIf(runId::equals);
    }

    /** The attributed access records one record makes known: none, itself, or waiting ones. */
    public List<Attributed> accept(AuditRecord record) {
        if (record instanceof AuditRecord.Access a) {
            String run = runByDomain.get(a.domain());
            if (run != null) {
                return List.of(new Attributed(run, a));
            }
            pending.put(a.serial(), a);
            return List.of();
        }
        if (record instanceof AuditRecord.Domain d) {
            if (!d.allocated()) {
                runByDomain.remove(d.domain());
                unknownDomains.remove(d.domain());
                pending.values().removeIf(a -> a.domain().equals(d.domain()));
                return List.of();
            }
            if (runByDomain.containsKey(d.domain()) || d.pid().isEmpty()) {
                return List.of();
            }
            Optional<String> run = runOf(d.pid().getAsLong());
            if (run.isPresent()) {
                return attribute(d.domain(), run.get());
            }
            unknownDomains.put(d.domain(), d.pid().getAsLong());
            return List.of();
        }
        if (record instanceof AuditRecord.Syscall s) {
            AuditRecord.Access a = pending.get(s.serial());
            if (a == null || runByDomain.containsKey(a.domain())) {
                return List.of();
            }
            Optional<String> run = runOf(s.pid()).or(() -> runOf(s.ppid()));
            return run.map(r -> attribute(a.domain(), r)).orElse(List.of());
        }
        return List.of();
    }

    private List<Attributed> attribute(String domain, String runId) {
        runByDomain.put(domain, runId);
        List<Attributed> out = new ArrayList<>();
        for (Iterator<AuditRecord.Access> it = pending.values().iterator(); it.hasNext();) {
            AuditRecord.Access a = it.next();
            if (a.domain().equals(domain)) {
                it.remove();
                out.add(new Attributed(runId, a));
            }
        }
        return out;
    }

    private Optional<String> runOf(long pid) {
        long p = pid;
        for (int i = 0; i < MAX_ANCESTRY && p > 1; i++) {
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
