// Java's own HttpClient for egress.sh, run as a single source file:
//   java EgressFetch.java URL
// prints the body's first line, or "error" and the exception's class. No
// proxy is configured (Builder.NO_PROXY): what reaches an allowed name is
// sbx's transparent egress.
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

public class EgressFetch {
    public static void main(String[] args) {
        try {
            HttpClient client = HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY)
                    .connectTimeout(Duration.ofSeconds(10)).build();
            HttpRequest req = HttpRequest.newBuilder(URI.create(args[0]))
                    .timeout(Duration.ofSeconds(20)).build();
            HttpResponse<String> r = client.send(req, HttpResponse.BodyHandlers.ofString());
            System.out.println(r.body().split("\n")[0]);
        } catch (Exception e) {
            Throwable c = e;
            while (c.getCause() != null)
                c = c.getCause();
            System.out.println("error " + c.getClass().getSimpleName());
        }
    }
}
