package dev.magus.workspace.project;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The projects' directories as they are on disk: each must be a directory that stays inside the
 * workspace once its links are followed. A confined run may replace {@code api} by a link to
 * {@code /etc}; the next run must not then start a target there, or take {@code /etc} for a
 * descendant project.
 */
public final class ProjectDirs {
    private ProjectDirs() {
    }

    /** @throws SandboxException MGS2004 naming the project's dir and where it was declared */
    public static void check(Projects projects, Path workspaceRoot) {
        if (projects.all().isEmpty()) {
            // Nothing to check: no real path of the root either (a readlink per component on every run).
            return;
        }
        Path root;
        try {
            root = workspaceRoot.toRealPath();
        } catch (IOException e) {
            return; // the workspace root itself is judged by the policy builder
        }
        for (Project p : projects.all()) {
            Path dir = p.path(workspaceRoot);
            String why;
            try {
                Path real = dir.toRealPath();
                if (!Files.isDirectory(real)) {
                    why = "is not a directory";
                } else if (!real.startsWith(root)) {
                    why = "leads out of the workspace, to " + Echo.quoted(real.toString()) + " (a symbolic link on the way)";
                } else {
                    continue;
                }
            } catch (IOException e) {
                why = "does not exist (or cannot be reached: " + e.getClass().getSimpleName() + ")";
            }
            throw new SandboxException(Diagnostic.of(Code.MGS2004, "project dir " + Echo.quoted(p.dir()) + " " + why
                    + "; a project is a directory inside the workspace", p.dir(), Operation.NONE, Layer.POLICY, p.source() + " dir"));
        }
    }
}
