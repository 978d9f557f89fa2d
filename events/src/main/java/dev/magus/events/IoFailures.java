package dev.magus.events;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * What went wrong with a file, in the operating system's words ("Permission denied", "No space
 * left on device", "Not a directory"), for a person to read in a diagnostic: never a Java class
 * name, which says nothing to someone who did not write magus.
 */
public final class IoFailures {
    private IoFailures() {
    }

    /** The reason of {@code e}, lower-cased at the start, with control characters made visible. */
    public static String reason(IOException e) {
        String reason = null;
        if (e instanceof FileSystemException fse) {
            reason = fse.getReason();
        }
        if (reason == null) {
            if (e instanceof NoSuchFileException) {
                reason = "no such file or directory";
            } else if (e instanceof AccessDeniedException) {
                reason = "permission denied";
            } else if (e instanceof NotDirectoryException) {
                reason = "not a directory";
            } else if (e instanceof FileAlreadyExistsException) {
                reason = "file exists";
            } else if (e instanceof DirectoryNotEmptyException) {
                reason = "directory not empty";
            } else {
                reason = e.getMessage() == null ? "input/output error" : e.getMessage();
            }
        }
        reason = reason.isEmpty() ? "input/output error" : Character.toLowerCase(reason.charAt(0)) + reason.substring(1);
        return Echo.visible(reason);
    }
}
