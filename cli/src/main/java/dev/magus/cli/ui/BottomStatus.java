package dev.magus.cli.ui;

import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.utils.InfoCmp.Capability;
import org.jline.utils.Status;

/**
 * JLine's {@link Status} with its rows reserved before the first draw.
 *
 * <p>When a Status grows, JLine moves the cursor up by the rows it added, assuming the
 * cursor sat on the last row and the growth scrolled the text up. A command typed at a
 * shell prompt usually runs with the cursor near the top of an empty screen, where that
 * move lands the cursor on lines already written and the next output overwrites them. Here
 * the rows are made free first (new lines, then back up to where the text goes on), and the
 * scroll region is set around the text before JLine draws: JLine then never grows the area.
 */
final class BottomStatus extends Status {
    private int rows;

    BottomStatus(Terminal terminal) {
        super(terminal);
    }

    @Override
    public void resize(Size size) {
        super.resize(size);
        rows = size.getRows();
    }

    boolean supported() {
        return supported;
    }

    /** Makes {@code height} rows at the bottom of the screen the status area, the text keeping its place above. */
    void reserve(int height) {
        for (int i = 0; i < height; i++) {
            terminal.writer().println();
        }
        terminal.flush();
        for (int i = 0; i < height; i++) {
            terminal.puts(Capability.cursor_up);
        }
        int region = rows - 1 - height;
        terminal.puts(Capability.save_cursor);
        terminal.puts(Capability.change_scroll_region, 0, region);
        terminal.puts(Capability.restore_cursor);
        scrollRegion = region;
        terminal.flush();
    }
}
