package io.aeronrs.internal;

import java.io.File;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds and loads libaeronrs.so once per JVM, and makes downcall handles to its exports.
 * <p>
 * Where the library comes from, first match wins:
 * <ol>
 *     <li>the path given to {@link #load(Path)} before any other use of this library;</li>
 *     <li>the system property {@value #LIBRARY_PROPERTY} (a file path);</li>
 *     <li>the environment variable {@value #LIBRARY_ENV} (a file path);</li>
 *     <li>{@code libaeronrs.so} in a directory of {@code java.library.path}.</li>
 * </ol>
 */
public final class NativeLibrary
{
    /** System property naming the library file. */
    public static final String LIBRARY_PROPERTY = "aeronrs.library";
    /** Environment variable naming the library file. */
    public static final String LIBRARY_ENV = "AERONRS_LIBRARY";

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option[] NONE = new Linker.Option[0];
    // Calls that neither block nor call back into Java: no thread state change, and heap
    // segments may be passed (they stay put while the call runs).
    private static final Linker.Option[] CRITICAL = { Linker.Option.critical(true) };

    private static Path explicitPath;
    private static SymbolLookup lookup;
    private static Path loadedPath;

    private NativeLibrary()
    {
    }

    /**
     * Uses the library at {@code path}. Call before anything else of aeronrs-java; once the
     * library is loaded, only the same path is accepted.
     *
     * @param path the libaeronrs.so file.
     * @throws IllegalStateException if another library was loaded already.
     */
    public static synchronized void load(final Path path)
    {
        final Path absolute = path.toAbsolutePath().normalize();
        if (null != lookup)
        {
            if (!absolute.equals(loadedPath))
            {
                throw new IllegalStateException("libaeronrs is already loaded from " + loadedPath);
            }
            return;
        }
        explicitPath = absolute;
        lookup();
    }

    /** The file the library was loaded from (loading it if that has not happened yet). */
    public static synchronized Path path()
    {
        lookup();
        return loadedPath;
    }

    private static synchronized SymbolLookup lookup()
    {
        if (null == lookup)
        {
            final Path path = locate();
            lookup = SymbolLookup.libraryLookup(path, Arena.global());
            loadedPath = path;
        }
        return lookup;
    }

    private static Path locate()
    {
        if (null != explicitPath)
        {
            return requireFile(explicitPath, "the path given to NativeLibrary.load");
        }
        final String property = System.getProperty(LIBRARY_PROPERTY);
        if (null != property && !property.isEmpty())
        {
            return requireFile(Path.of(property), "system property " + LIBRARY_PROPERTY);
        }
        final String env = System.getenv(LIBRARY_ENV);
        if (null != env && !env.isEmpty())
        {
            return requireFile(Path.of(env), "environment variable " + LIBRARY_ENV);
        }
        final String fileName = System.mapLibraryName("aeronrs");
        final List<String> searched = new ArrayList<>();
        for (final String dir : System.getProperty("java.library.path", "").split(File.pathSeparator))
        {
            if (!dir.isEmpty())
            {
                final Path candidate = Path.of(dir, fileName);
                if (Files.isRegularFile(candidate))
                {
                    return candidate.toAbsolutePath().normalize();
                }
                searched.add(dir);
            }
        }
        throw new UnsatisfiedLinkError("libaeronrs not found: set -D" + LIBRARY_PROPERTY + "=<path to " + fileName +
            ">, the environment variable " + LIBRARY_ENV + ", call NativeLibrary.load(path), or put " + fileName +
            " in a directory of java.library.path (searched: " + searched + ")");
    }

    private static Path requireFile(final Path path, final String source)
    {
        if (!Files.isRegularFile(path))
        {
            throw new UnsatisfiedLinkError("libaeronrs not found at " + path + " (from " + source + ")");
        }
        return path.toAbsolutePath().normalize();
    }

    /** The address of the export {@code name}. */
    public static MemorySegment symbol(final String name)
    {
        return lookup().find(name).orElseThrow(() -> new UnsatisfiedLinkError(
            "libaeronrs at " + loadedPath + " has no symbol " + name + " (a library older than this jar?)"));
    }

    /** A downcall handle for {@code name}. */
    public static MethodHandle downcall(final String name, final FunctionDescriptor descriptor)
    {
        return LINKER.downcallHandle(symbol(name), descriptor, NONE);
    }

    /**
     * A downcall handle for a short call that never blocks and never calls back into Java
     * (offer, claim, poll into descriptors, counter reads): cheaper to make, and it may take
     * heap segments.
     */
    public static MethodHandle criticalDowncall(final String name, final FunctionDescriptor descriptor)
    {
        return LINKER.downcallHandle(symbol(name), descriptor, CRITICAL);
    }

    /** An upcall stub calling {@code target}, alive as long as {@code arena}. */
    public static MemorySegment upcall(final MethodHandle target, final FunctionDescriptor descriptor, final Arena arena)
    {
        return LINKER.upcallStub(target, descriptor, arena, NONE);
    }
}
