package aeronrs.ffm;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Publishes a few messages and receives them through aeronrs (libaeronrs.so, via the FFM
 * API) and the media driver in the directory given as the first argument (default: the
 * AERON_DIR environment variable).
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -Daeronrs.lib=target/release/libaeronrs.so \
 *     -cp interop/java-ffm/target/classes aeronrs.ffm.FfmExample /dev/shm/aeron-me</pre>
 */
public final class FfmExample
{
    public static void main(final String[] args) throws Exception
    {
        final String dir = args.length > 0 ? args[0] : System.getenv("AERON_DIR");
        final String channel = "aeron:ipc";
        try (AeronFfm.Client client = new AeronFfm.Client(dir, Duration.ofSeconds(10));
            AeronFfm.Subscription subscription = client.addSubscription(channel, 1001);
            AeronFfm.Publication publication = client.addPublication(channel, 1001))
        {
            System.out.println("connected as client " + client.clientId());
            while (!publication.isConnected() || subscription.imageCount() == 0)
            {
                Thread.sleep(1);
            }
            for (int i = 0; i < 3; i++)
            {
                final byte[] message = ("Hello from Java FFM " + i).getBytes(StandardCharsets.UTF_8);
                long position;
                while ((position = publication.offer(message)) < 0)
                {
                    Thread.onSpinWait();
                }
                System.out.println("offered at position " + position);
            }
            final int[] received = { 0 };
            while (received[0] < 3)
            {
                subscription.poll((bytes, position) ->
                {
                    System.out.println("received <<" + new String(bytes, StandardCharsets.UTF_8) + ">> ending at " +
                        position);
                    received[0]++;
                }, 10);
            }
        }
    }
}
