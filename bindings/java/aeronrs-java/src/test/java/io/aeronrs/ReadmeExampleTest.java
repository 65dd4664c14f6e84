package io.aeronrs;

import io.aeronrs.driver.MediaDriver;
import io.aeronrs.logbuffer.FragmentHandler;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The README's Java example, as written there (but in a temp Aeron directory), with its output checked. */
@Timeout(60)
class ReadmeExampleTest
{
    @Test
    void readmeExampleRuns()
    {
        final Path dir = TestSupport.tempDir("readme");
        final List<String> printed = new ArrayList<>();
        try (MediaDriver driver = MediaDriver.launch(new MediaDriver.Context().dirDeleteOnShutdown(true)
                .aeronDirectoryName(dir.resolve("aeron").toString()));
            Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
            Subscription subscription = aeron.addSubscription("aeron:ipc", 10);
            Publication publication = aeron.addPublication("aeron:ipc", 10))
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
            buffer.putStringWithoutLengthAscii(0, "hello");
            while (publication.offer(buffer, 0, 5) < 0) { Thread.onSpinWait(); }
            final FragmentHandler handler = (b, offset, length, header) ->
                printed.add(b.getStringWithoutLengthAscii(offset, length) + " at " + header.position());
            while (subscription.poll(handler, 10) == 0) { Thread.onSpinWait(); }
        }
        finally
        {
            TestSupport.deleteRecursively(dir);
        }
        assertEquals(List.of("hello at 64"), printed);
    }
}
