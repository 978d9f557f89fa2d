package dev.magus.workspace.spell;

import dev.magus.env.shim.ShimManager;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.workspace.audit.Readers;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The spells a workspace can bind: the built-ins, its YAML spells ({@code .magus/spells/NAME.yaml})
 * and the Java providers on the class path. Which names exist is known when the catalog is
 * made; a YAML spell's file is read and its declaration checked when the spell loads
 * ({@link #spell}), so a run with the sandbox off is not stopped by a declaration it does not use.
 *
 * <p>A built-in name cannot be shadowed, and no two user spells may share a name: either is
 * MGS2004 when the catalog is made.
 */
public final class SpellCatalog {
    /** Where a workspace keeps its YAML spells, relative to its root. */
    public static final String DIR = ".magus/spells";

    private final SpellHost host;
    private final Function<Path, String> reader;
    /** User spell names to their YAML file (absent for a provider's). */
    private final Map<String, Path> yaml;
    private final Map<String, Spell> provided;
    private final Map<String, Spell> loaded = new ConcurrentHashMap<>();
    private final SpellParses parses;

    private SpellCatalog(SpellHost host, Function<Path, String> reader, Map<String, Path> yaml, Map<String, Spell> provided,
            SpellParses parses) {
        this.host = host;
        this.parses = parses;
        this.reader = reader;
        this.yaml = yaml;
        this.provided = provided;
    }

    /** The built-ins alone: a directory without a workspace, or a program that loads no user spell. */
    public static SpellCatalog builtins(SpellHost host) {
        return new SpellCatalog(host, p -> {
            throw new IllegalStateException("no YAML spells");
        }, Map.of(), Map.of(), new SpellParses());
    }

    /**
     * The catalog of {@code workspaceRoot}, its YAML spells parsed afresh (nothing kept for the next catalog).
     *
     * @param workspaceRoot the workspace whose {@code .magus/spells} is listed
     * @param reader        reads a spell file's text, refusing what is not a small regular UTF-8 file (MGS2004)
     * @param providers     the class loader {@link SpellProvider}s are looked up with
     * @throws SandboxException MGS2004 for a user spell shadowing a built-in, two user spells of
     *         one name, a file name that is not a spell name, a directory that cannot be listed,
     *         a provider that cannot be loaded or whose spell is refused
     * @param parses        where a YAML spell's parse is taken from while its text is unchanged, and kept
     */
    public static SpellCatalog load(Path workspaceRoot, SpellHost host, Function<Path, String> reader, ClassLoader providers,
            SpellParses parses) {
        Map<String, Path> yaml = new TreeMap<>();
        for (Path file : list(workspaceRoot.resolve(DIR))) {
            String fileName = file.getFileName().toString();
            String name = fileName.substring(0, fileName.length() - ".yaml".length());
            String shown = DIR + "/" + fileName;
            if (!Spell.isName(name)) {
                throw refused(shown, Echo.quoted(fileName) + " in " + DIR + " does not name a spell: a spell name is lower-case"
                        + " letters, digits, '-' and '_'");
            }
            if (BuiltinSpells.isBuiltin(name)) {
                throw refused(shown, "spell " + name + " in " + shown + " would shadow the built-in spell " + name
                        + "; a built-in cannot be replaced: give yours another name");
            }
            yaml.put(name, file);
        }
        Map<String, Spell> provided = new LinkedHashMap<>();
        try {
            for (SpellProvider p : providers(providers)) {
                String source = p.getClass().getName();
                for (Spell s : p.spells(host)) {
                    if (BuiltinSpells.isBuiltin(s.name())) {
                        throw refused(source, "spell " + s.name() + " of provider " + source + " would shadow the built-in spell "
                                + s.name() + "; a built-in cannot be replaced");
                    }
                    if (yaml.containsKey(s.name()) || provided.containsKey(s.name())) {
                        String other = yaml.containsKey(s.name()) ? DIR + "/" + s.name() + ".yaml" : provided.get(s.name()).source();
                        throw refused(source, "spell " + s.name() + " is defined twice: by provider " + source + " and by " + other);
                    }
                    provided.put(s.name(), s);
                }
            }
        } catch (ServiceConfigurationError e) {
            throw refused(SpellProvider.class.getName(), "a spell provider cannot be loaded: " + e.getMessage());
        }
        return new SpellCatalog(host, reader, yaml, provided, parses);
    }

    /** Whether {@code name} is one of the workspace's own YAML spells ({@code .magus/spells/NAME.yaml}), which the repository ships. */
    public boolean shipped(String name) {
        return yaml.containsKey(name);
    }

    /** Every spell name, built-ins first. */
    public Set<String> names() {
        Set<String> out = new LinkedHashSet<>(BuiltinSpells.NAMES);
        out.addAll(yaml.keySet());
        out.addAll(provided.keySet());
        return out;
    }

    public boolean knows(String name) {
        return BuiltinSpells.isBuiltin(name) || yaml.containsKey(name) || provided.containsKey(name);
    }

    /**
     * The spell, loaded: a YAML spell's file is read and checked the first time.
     *
     * @throws SandboxException MGS2004 naming the spell (and its file, line and column) when its
     *         declaration cannot be honored, or when no spell has the name
     * @throws IllegalArgumentException never for a name {@link #knows} knows
     */
    public Spell spell(String name) {
        Optional<Spell> builtin = BuiltinSpells.get(name, host);
        if (builtin.isPresent()) {
            return builtin.get();
        }
        if (provided.containsKey(name)) {
            return provided.get(name);
        }
        Path file = yaml.get(name);
        if (file == null) {
            throw new SandboxException(Diagnostic.of(Code.MGS2004, "no spell is named " + Echo.quoted(name) + " (known: "
                    + String.join(", ", names()) + ")", name, Operation.NONE, Layer.POLICY, "spell:" + Echo.cut(name)));
        }
        return loaded.computeIfAbsent(name, n -> parses.parse(n, reader.apply(file), DIR + "/" + n + ".yaml"));
    }

    /** The spell providers a class loader sees, looked up once per loader (a class path does not change). */
    private static final Map<ClassLoader, List<SpellProvider>> PROVIDERS =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /**
     * Each class loader's providers, found once: the lookup reads every jar on the class path
     * for its service file, which cost a server more per run than the rest of loading the
     * catalog. A lookup that fails is never kept (each run fails with it again).
     *
     * @throws ServiceConfigurationError as {@link ServiceLoader} does
     */
    private static List<SpellProvider> providers(ClassLoader loader) {
        List<SpellProvider> known = PROVIDERS.get(loader);
        if (known != null) {
            return known;
        }
        List<SpellProvider> found = new ArrayList<>();
        ServiceLoader.load(SpellProvider.class, loader).forEach(found::add);
        List<SpellProvider> kept = List.copyOf(found);
        PROVIDERS.put(loader, kept);
        return kept;
    }

    /**
     * The version managers MGS2006 looks for: every one a spell of this catalog knows, the
     * built-ins' first, then the providers', then the bound YAML spells' (each file read here if
     * no stage has loaded it yet), one per name.
     *
     * <p>A YAML spell adds its managers only when it is {@code bound} (by the project of the
     * working directory, or the op): a spell file a cloned repository brought along, bound by
     * nothing, must not make every run suggest passing variables through. A YAML spell that
     * cannot be loaded adds no manager here: its MGS2004 is raised where it is bound
     * ({@link #spell}), and a hint left out never widens a run.
     *
     * @param bound the names of the spells this run's process gets
     */
    public List<ShimManager> managers(java.util.Collection<String> bound) {
        Map<String, ShimManager> out = new LinkedHashMap<>();
        ShimManager.KNOWN.forEach(m -> out.putIfAbsent(m.name(), m));
        provided.values().forEach(s -> s.managers().forEach(m -> out.putIfAbsent(m.name(), m)));
        for (String name : yaml.keySet()) {
            if (!bound.contains(name)) {
                continue;
            }
            try {
                spell(name).managers().forEach(m -> out.putIfAbsent(m.name(), m));
            } catch (SandboxException e) {
                // Refused where it is bound; see above.
            }
        }
        return List.copyOf(out.values());
    }

    private static List<Path> list(Path dir) {
        if (Readers.noEntry(dir)) {
            // What NoSuchFileException below answers, without it (the usual case: no YAML spells).
            return List.of();
        }
        List<Path> out = new ArrayList<>();
        // A filter, not the glob "*.yaml", which compiles a regular expression on every call.
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, p -> p.getFileName().toString().endsWith(".yaml"))) {
            entries.forEach(out::add);
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (NotDirectoryException e) {
            throw refused(DIR, DIR + " is not a directory; a workspace keeps its YAML spells there");
        } catch (IOException e) {
            throw refused(DIR, "cannot list " + DIR + ": " + e.getMessage() + "; magus does not guess which spells exist");
        }
        out.sort(null);
        return out;
    }

    private static SandboxException refused(String source, String message) {
        return new SandboxException(Diagnostic.of(Code.MGS2004, message, "", Operation.NONE, Layer.POLICY, source));
    }
}
