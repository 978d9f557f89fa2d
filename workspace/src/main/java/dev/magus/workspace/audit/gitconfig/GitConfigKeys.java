package dev.magus.workspace.audit.gitconfig;

import dev.magus.policy.git.ConfigKey;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The one list of what a run may do to a repository's config: keys it may leave as set
 * ({@link #HARMLESS}), and keys that make a later, unconfined git run a program, read another
 * file as config, or send data elsewhere ({@link #DANGEROUS}). A key on neither list is put
 * back: git's keys grow with each release, so only what is known harmless is kept.
 *
 * <p>Patterns: {@code section.key}, {@code section.*.key}, {@code section.*},
 * {@code section.**}. Judged by value: {@code alias.*} and {@code submodule.*.update} starting
 * with {@code !} run a command; {@code core.worktree} is harmless only inside the workspace
 * ({@link Context}); any value naming a place in a git dir's data ({@code .git/objects/...},
 * {@code refs}, {@code logs}, {@code lfs}) is dangerous, since the audit does not walk git's
 * data and a bare repository planted there would run its hooks on the next push.
 * {@code GitConfigKeysTest} checks the lists against the installed git's keys.
 */
public final class GitConfigKeys {
    private GitConfigKeys() {
    }

    /** How one changed key is judged. */
    public enum Verdict {
        /** On {@link #HARMLESS}: kept as the run left it. */
        HARMLESS,
        /** On {@link #DANGEROUS}, or a value that runs a command: put back. */
        DANGEROUS,
        /** On neither list: put back. */
        UNKNOWN;

        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What the judgement of a value needs from outside the text. */
    public record Context(Predicate<String> worktreeInside) {
        /** Where {@code core.worktree} cannot be checked: it is never harmless. */
        public static final Context NONE = new Context(v -> false);
    }

    /** Keys that name a program, a file git reads as config or a hook, or where git sends what it holds. */
    public static final List<String> DANGEROUS = List.of(
            "core.hookspath", "core.fsmonitor", "core.sshcommand", "core.editor", "core.pager", "core.askpass",
            "core.gitproxy", "core.alternaterefscommand", "core.worktree", "core.attributesfile",
            "core.fsmonitorhookversion",
            "sequence.editor",
            "credential.**", "credentialcache.**", "credentialstore.**",
            "diff.external", "diff.*.command", "diff.*.textconv", "difftool.**", "mergetool.**",
            "filter.*.clean", "filter.*.smudge", "filter.*.process", "filter.*.required",
            "merge.*.driver",
            "include.path", "includeif.**",
            "protocol.allow", "protocol.*.allow",
            "uploadpack.**", "receive.**", "uploadarchive.**",
            "gpg.program", "gpg.*.program", "gpg.*.defaultkeycommand", "gpg.*.allowedsignersfile",
            "extensions.worktreeconfig",
            "init.templatedir",
            "remote.*.uploadpack", "remote.*.receivepack", "remote.*.vcs", "remote.*.proxy",
            "remote.*.proxyauthmethod",
            "http.**", "url.**", "ssh.**",
            "pager.*", "web.browser", "browser.*.cmd", "browser.*.path", "man.*.cmd", "man.*.path",
            "guitool.**", "sendemail.**", "instaweb.**", "gitcvs.**", "svn.**", "svn-remote.**",
            "trailer.*.command", "trailer.*.cmd", "bundle.**",
            "fsmonitor.**", "safe.**", "transfer.**");

    /** Keys a run may set, change or remove: where to push and fetch, who commits, how git stores things. */
    public static final List<String> HARMLESS = List.of(
            "remote.*.url", "remote.*.pushurl", "remote.*.fetch", "remote.*.push", "remote.*.mirror",
            "remote.*.skipdefaultupdate", "remote.*.skipfetchall", "remote.*.tagopt", "remote.*.prune",
            "remote.*.prunetags", "remote.*.promisor", "remote.*.partialclonefilter", "remote.pushdefault",
            "branch.**",
            "user.*", "author.*", "committer.*",
            "submodule.*.url", "submodule.*.active", "submodule.*.branch", "submodule.*.update",
            "submodule.*.fetchrecursesubmodules", "submodule.*.ignore", "submodule.*.shallow",
            "submodule.active", "submodule.recurse", "submodule.fetchjobs",
            "init.*",
            "core.bare", "core.repositoryformatversion", "core.filemode", "core.logallrefupdates",
            "core.ignorecase", "core.precomposeunicode", "core.symlinks", "core.autocrlf", "core.eol",
            "core.safecrlf", "core.quotepath", "core.sparsecheckout", "core.sparsecheckoutcone",
            "core.untrackedcache", "core.splitindex", "core.commitgraph", "core.multipackindex", "core.abbrev",
            "core.checkstat", "core.trustctime", "core.compression", "core.loosecompression",
            "extensions.objectformat", "extensions.refstorage", "extensions.partialclone",
            "gc.**", "maintenance.**", "fetch.*", "pull.rebase", "pull.ff",
            "push.default", "push.autosetupremote", "push.followtags",
            "rerere.enabled", "rerere.autoupdate", "advice.*", "color.**", "column.*", "status.*",
            "merge.ff", "merge.conflictstyle", "merge.log", "merge.renames",
            "rebase.autosquash", "rebase.autostash", "rebase.updaterefs",
            "commit.verbose", "log.date", "log.decorate", "lfs.repositoryformatversion", "index.version",
            "feature.manyfiles", "pack.**", "repack.**");

    /** How a changed {@code key}, now (or, removed, before) {@code value}, is judged. */
    public static Verdict classify(ConfigKey key, Optional<String> value, Context context) {
        String v = value.orElse("");
        if (key.section().equals("alias")) {
            return key.subsection().isEmpty() && !v.stripLeading().startsWith("!") ? Verdict.HARMLESS : Verdict.DANGEROUS;
        }
        if (key.section().equals("submodule") && key.name().equals("update") && key.subsection().isPresent()
                && v.stripLeading().startsWith("!")) {
            return Verdict.DANGEROUS;
        }
        if (key.section().equals("core") && key.name().equals("worktree") && key.subsection().isEmpty()) {
            return value.isPresent() && context.worktreeInside().test(v) ? Verdict.HARMLESS : Verdict.DANGEROUS;
        }
        if (matchesAny(DANGEROUS, key)) {
            return Verdict.DANGEROUS;
        }
        if (!matchesAny(HARMLESS, key)) {
            return Verdict.UNKNOWN;
        }
        return namesGitData(v) ? Verdict.DANGEROUS : Verdict.HARMLESS;
    }

    /** git's data directories right beneath a git dir, which the audit's walk does not enter. */
    private static final java.util.Set<String> GIT_DATA = java.util.Set.of("objects", "refs", "logs", "lfs");

    /**
     * Whether {@code value}, read as a path or URL, goes through a {@code .git} component and
     * later one of git's data directories (ignoring ASCII case, as the control files do).
     */
    static boolean namesGitData(String value) {
        String[] parts = value.split("[/\\\\]");
        boolean inGit = false;
        for (String part : parts) {
            String p = part.strip().toLowerCase(Locale.ROOT);
            if (p.equals(".git")) {
                inGit = true;
            } else if (inGit && GIT_DATA.contains(p)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code key} is on {@code patterns}. */
    static boolean matchesAny(List<String> patterns, ConfigKey key) {
        for (String p : patterns) {
            if (matches(p, key)) {
                return true;
            }
        }
        return false;
    }

    static boolean matches(String pattern, ConfigKey key) {
        int first = pattern.indexOf('.');
        String section = pattern.substring(0, first);
        String rest = pattern.substring(first + 1);
        if (!section.equals(key.section())) {
            return false;
        }
        if (rest.equals("**")) {
            return true;
        }
        if (rest.equals("*")) {
            return key.subsection().isEmpty();
        }
        if (rest.startsWith("*.")) {
            return key.subsection().isPresent() && rest.substring(2).equals(key.name());
        }
        return key.subsection().isEmpty() && rest.equals(key.name());
    }
}
