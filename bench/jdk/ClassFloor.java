import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The floor of a direct run's class loading: loads, in order, the classes a direct
 * {@code magus run --local -- true} loads (the list from -Xlog:class+load, hidden and lambda
 * classes left out), from a class archive made by this very program, and with "init" runs their
 * static initialisers too. Nothing of magus runs. Run by bench/direct-floor.sh.
 */
public final class ClassFloor {
    public static void main(String[] a) throws Exception {
        List<String> names = Files.readAllLines(Path.of(a[0]));
        boolean init = a.length > 1 && a[1].equals("init");
        ClassLoader app = ClassLoader.getSystemClassLoader();
        int ok = 0, bad = 0;
        for (String n : names) {
            try { Class.forName(n, init, app); ok++; } catch (Throwable t) { bad++; }
        }
        if (a.length > 2) System.out.println(ok + " loaded, " + bad + " not");
    }
}
